//go:generate go run github.com/toolhost/toolhost/sdk-guest/go/cmd/toolhost-gen

// Command hostcall calls a host function the embedder added, by name,
// through the SDK's CallHost: what the host answers — a result, a
// refusal, an unknown function, arguments it does not take — becomes the
// tool's output, except a permission refusal, which it returns unchanged.
package main

import (
	"encoding/json"
	"errors"

	tool "github.com/toolhost/toolhost/sdk-guest/go"
)

type RunArgs struct {
	Fn   string          `json:"fn"`
	Args json.RawMessage `json:"args,omitempty"`
}

var _ = tool.Define("run", "Call the host function fn with args.", func(ctx *tool.Context, a RunArgs) (tool.Result, error) {
	var out any
	if err := ctx.CallHost(a.Fn, a.Args, &out); err != nil {
		var he *tool.HostError
		if errors.As(err, &he) {
			return tool.Text("host error " + he.Kind + ": " + he.Message), nil
		}
		return tool.Result{}, err
	}
	b, _ := json.Marshal(out)
	return tool.Text(string(b)), nil
})

func main() {}
