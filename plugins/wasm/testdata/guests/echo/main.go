// Command echo is the trivial tool of the benchmarks and the concurrency
// test: it returns its arguments and call id.
package main

import (
	"encoding/json"

	tool "github.com/toolhost/toolhost/sdk-guest/go"
)

type Args struct {
	Text string `json:"text"`
	N    int    `json:"n,omitempty"`
}

var _ = tool.Main("Echo the text back.", func(ctx *tool.Context, a Args) (tool.Result, error) {
	b, _ := json.Marshal(map[string]any{"text": a.Text, "n": a.N, "call": ctx.CallID})
	return tool.Text(string(b)), nil
})

//go:wasmexport description
func description() int32 { return tool.ExportDescription("") }

//go:wasmexport schema
func schema() int32 { return tool.ExportSchema("") }

//go:wasmexport execute
func execute() int32 { return tool.ExportExecute("") }

func main() {}
