//go:generate go run github.com/toolhost/toolhost/sdk-guest/go/cmd/toolhost-gen

// Command client exercises the host functions that reach the caller's
// client: sample, elicit and log.
package main

import (
	"encoding/json"

	tool "github.com/toolhost/toolhost/sdk-guest/go"
)

type Empty struct{}

type SampleArgs struct {
	Prompt    string `json:"prompt"`
	MaxTokens int64  `json:"max_tokens,omitempty"`
}

var _ = tool.Define("sample", "Ask the client's model.", func(ctx *tool.Context, a SampleArgs) (tool.Result, error) {
	if a.MaxTokens == 0 {
		a.MaxTokens = 50
	}
	res, err := ctx.Sample(tool.SampleRequest{
		Messages:  []tool.SampleMessage{{Role: "user", Content: tool.SampleContent{Type: "text", Text: a.Prompt}}},
		MaxTokens: a.MaxTokens,
	})
	if err != nil {
		return tool.Text("no sample: " + err.Error()), nil
	}
	return tool.Text(res.Model + " said " + res.Content.Text), nil
})

type ElicitArgs struct {
	Message string `json:"message"`
}

var _ = tool.Define("elicit", "Ask the client's user for a name.", func(ctx *tool.Context, a ElicitArgs) (tool.Result, error) {
	res, err := ctx.Elicit(a.Message, map[string]any{
		"type":       "object",
		"properties": map[string]any{"name": map[string]any{"type": "string"}},
	})
	if err != nil {
		return tool.Text("no answer: " + err.Error()), nil
	}
	b, _ := json.Marshal(res.Content)
	return tool.Text(res.Action + " " + string(b)), nil
})

var _ = tool.Define("log", "Log at two levels.", func(ctx *tool.Context, _ Empty) (tool.Result, error) {
	ctx.Log.Info("first line")
	ctx.Log.Error("second line")
	return tool.Text("logged"), nil
})

func main() {}
