// Command host embeds toolhost as a library through its public API alone:
// host.New assembles the project's tools (built-in, wasm, plugins, MCP),
// Tools lists them and Call runs one. Usage: host <tool> '<json args>'.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/toolhost/toolhost/host"
	"github.com/toolhost/toolhost/runtime"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: host <tool> '<json args>'")
		os.Exit(2)
	}
	ctx := context.Background()
	h, err := host.New(ctx, host.Options{})
	check(err)
	defer h.Close(ctx)
	for _, p := range h.LoadErrors {
		fmt.Fprintln(os.Stderr, "skipped:", p)
	}
	tools, err := h.Tools(ctx, "", "")
	check(err)
	fmt.Fprintf(os.Stderr, "%d tools offered\n", len(tools))
	res, err := h.Call(ctx, runtime.Call{Tool: os.Args[1], Args: []byte(os.Args[2]), SessionID: "example"})
	check(err)
	fmt.Println(res.Output)
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
