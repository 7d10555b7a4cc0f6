// Command unknownimport imports a host function toolhost does not provide.
package main

import tool "github.com/toolhost/toolhost/sdk-guest/go"

type Empty struct{}

//go:wasmimport extism:host/user launch_missiles
func launchMissiles(uint64) uint64

var _ = tool.Main("Imports too much.", func(ctx *tool.Context, _ Empty) (tool.Result, error) {
	launchMissiles(0)
	return tool.Text(""), nil
})

//go:wasmexport description
func description() int32 { return tool.ExportDescription("") }

//go:wasmexport schema
func schema() int32 { return tool.ExportSchema("") }

//go:wasmexport execute
func execute() int32 { return tool.ExportExecute("") }

func main() {}
