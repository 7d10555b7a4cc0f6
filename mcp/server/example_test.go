package server_test

import (
	"context"
	"fmt"
	"os"
	"strings"

	sdk "github.com/toolhost/toolhost/internal/third_party/gosdk/mcp"

	"github.com/toolhost/toolhost/mcp/server"
	"github.com/toolhost/toolhost/runtime"
)

type EchoArgs struct {
	Text string `json:"text"`
}

// Serving MCP: server.New offers a registry's tools to MCP clients on any
// go-sdk transport — stdio (ServeStdio), HTTP (Handler), or, as here, an
// in-memory pair a client in the same process connects to. Server.Asker
// asks the client's user through elicitation when a rule says ask.
func ExampleNew() {
	ctx := context.Background()
	data, err := os.MkdirTemp("", "toolhost-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(data)
	reg, err := runtime.NewRegistry(runtime.Options{Asker: server.Asker{}, DataDir: data})
	if err != nil {
		fmt.Println(err)
		return
	}
	reg.Add(runtime.SourceRuntime, runtime.Define("echo", "Repeat the text.",
		func(_ context.Context, a EchoArgs, _ *runtime.Context) (runtime.Result, error) {
			return runtime.Result{Output: strings.Repeat(a.Text, 2)}, nil
		}))
	srv, err := server.New(ctx, reg, server.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()

	clientEnd, serverEnd := sdk.NewInMemoryTransports()
	if _, err := srv.Connect(ctx, serverEnd); err != nil {
		fmt.Println(err)
		return
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "example", Version: "1"}, nil)
	cs, err := client.Connect(ctx, clientEnd, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hey "}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Content[0].(*sdk.TextContent).Text)
	// Output:
	// hey hey
}
