// Command host embeds toolhost as a library: it loads the project's config
// and wasm tools, and runs one call. Usage: host <tool> '<json args>'.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/toolhost/toolhost/plugins"
	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/config"
)

func main() {
	ctx := context.Background()
	loaded, err := config.Load(config.LoadOptions{})
	check(err)
	wasm := plugins.NewHost(plugins.HostOptions{Config: loaded.Config})
	defer wasm.Close(ctx)
	tools, problems := wasm.Discover(ctx, loaded.Dirs)
	for _, p := range problems {
		fmt.Fprintln(os.Stderr, "skipped:", p)
	}
	reg, err := runtime.NewRegistry(runtime.Options{Config: loaded.Config})
	check(err)
	reg.Add(runtime.SourceWasm, tools...)
	res, err := reg.Call(ctx, runtime.Call{Tool: os.Args[1], Args: []byte(os.Args[2]), SessionID: "example"})
	check(err)
	fmt.Println(res.Output)
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
