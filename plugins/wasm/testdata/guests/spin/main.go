// Command spin never returns from execute.
package main

import tool "github.com/toolhost/toolhost/sdk-guest/go"

type Empty struct{}

var spins int

var _ = tool.Main("Spin forever.", func(ctx *tool.Context, _ Empty) (tool.Result, error) {
	for {
		spins++
	}
})

//go:wasmexport description
func description() int32 { return tool.ExportDescription("") }

//go:wasmexport schema
func schema() int32 { return tool.ExportSchema("") }

//go:wasmexport execute
func execute() int32 { return tool.ExportExecute("") }

func main() {}
