package runtime_test

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/toolhost/toolhost/runtime"
)

// ShoutArgs are the tool's arguments; their JSON Schema, which the model
// sees and every call is validated against, comes from the struct.
type ShoutArgs struct {
	Text string `json:"text" jsonschema:"description=What to shout"`
}

// A native Go tool: runtime.Define makes one from a function, and the
// registry runs every call through the same chain as a wasm or MCP
// tool's — validation, permissions, hooks, truncation.
func ExampleDefine() {
	shout := runtime.Define("shout", "Repeat the text in capitals.",
		func(ctx context.Context, a ShoutArgs, tc *runtime.Context) (runtime.Result, error) {
			return runtime.Result{Title: "shouted", Output: strings.ToUpper(a.Text) + "!"}, nil
		})
	data, err := os.MkdirTemp("", "toolhost-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(data)
	reg, err := runtime.NewRegistry(runtime.Options{DataDir: data})
	if err != nil {
		fmt.Println(err)
		return
	}
	reg.Add(runtime.SourceRuntime, shout)
	ctx := context.Background()
	res, err := reg.Call(ctx, runtime.Call{Tool: "shout", Args: []byte(`{"text": "hello"}`), SessionID: "s1"})
	fmt.Println(res.Output, err)
	_, err = reg.Call(ctx, runtime.Call{Tool: "shout", Args: []byte(`{"text": 7}`), SessionID: "s1"})
	fmt.Println(err != nil)
	// Output:
	// HELLO! <nil>
	// true
}
