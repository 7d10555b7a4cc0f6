//go:generate go run github.com/toolhost/toolhost/sdk-guest/go/cmd/toolhost-gen

// Command kitchen exercises every host function, one named tool each.
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	tool "github.com/toolhost/toolhost/sdk-guest/go"
)

type Empty struct{}

type AskArgs struct {
	Pattern string `json:"pattern"`
}

var _ = tool.Define("context", "Return the call context.", func(ctx *tool.Context, _ Empty) (tool.Result, error) {
	b, _ := json.Marshal(ctx)
	return tool.Text(string(b)), nil
})

var _ = tool.Define("ask", "Ask for permission edit on a pattern, then act.", func(ctx *tool.Context, a AskArgs) (tool.Result, error) {
	if err := ctx.Ask(tool.AskRequest{Permission: "edit", Patterns: []string{a.Pattern}, Always: []string{"*"}}); err != nil {
		return tool.Result{}, err
	}
	return tool.Text("did it"), nil
})

var _ = tool.Define("askhandled", "Ask, and report a refusal as output.", func(ctx *tool.Context, a AskArgs) (tool.Result, error) {
	err := ctx.Ask(tool.AskRequest{Permission: "edit", Patterns: []string{a.Pattern}})
	var pe *tool.PermissionError
	if errors.As(err, &pe) {
		return tool.Text("refused (" + pe.Kind + "): " + pe.Message), nil
	}
	return tool.Text("allowed"), err
})

var _ = tool.Define("progress", "Report three progress steps.", func(ctx *tool.Context, _ Empty) (tool.Result, error) {
	for i := 1; i <= 3; i++ {
		ctx.Metadata(fmt.Sprintf("step %d", i), map[string]any{"step": i})
	}
	ctx.Log.Info("progress done")
	return tool.Text("done"), nil
})

var _ = tool.Define("counter", "Count calls in this session.", func(ctx *tool.Context, _ Empty) (tool.Result, error) {
	var n int
	if _, err := ctx.State.Get("n", &n); err != nil {
		return tool.Result{}, err
	}
	n++
	if err := ctx.State.Set("n", n); err != nil {
		return tool.Result{}, err
	}
	return tool.Text(fmt.Sprint(n)), nil
})

type ConfigArgs struct {
	Key string `json:"key"`
}

var _ = tool.Define("config", "Return a config value.", func(ctx *tool.Context, a ConfigArgs) (tool.Result, error) {
	v, ok := ctx.Config(a.Key)
	if !ok {
		return tool.Result{}, fmt.Errorf("config %q is not set", a.Key)
	}
	return tool.Text(v), nil
})

type ReadArgs struct {
	Path string `json:"path"`
}

var _ = tool.Define("read", "Read a file.", func(ctx *tool.Context, a ReadArgs) (tool.Result, error) {
	b, err := os.ReadFile(a.Path)
	if err != nil {
		return tool.Result{}, err
	}
	return tool.Text(string(b)), nil
})

var _ = tool.Define("env", "List the environment.", func(ctx *tool.Context, _ Empty) (tool.Result, error) {
	return tool.Text(strings.Join(os.Environ(), "\n")), nil
})

var _ = tool.Define("fail", "Fail with a message.", func(ctx *tool.Context, _ Empty) (tool.Result, error) {
	return tool.Result{}, errors.New("the thing is broken")
})

var _ = tool.Define("structured", "Return a structured result.", func(ctx *tool.Context, _ Empty) (tool.Result, error) {
	return tool.Result{Output: "out", Title: "a title", Metadata: map[string]any{"k": "v"}}, nil
})

type FetchArgs struct {
	URL string `json:"url"`
}

var _ = tool.Define("fetch", "Fetch a URL.", func(ctx *tool.Context, a FetchArgs) (tool.Result, error) {
	status, body := tool.Fetch(tool.HTTPRequest{URL: a.URL})
	return tool.Text(fmt.Sprintf("%d %s", status, body)), nil
})

func main() {}
