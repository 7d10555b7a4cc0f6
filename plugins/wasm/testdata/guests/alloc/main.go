// Command alloc allocates until memory runs out.
package main

import tool "github.com/toolhost/toolhost/sdk-guest/go"

type Empty struct{}

var keep [][]byte

var _ = tool.Main("Allocate forever.", func(ctx *tool.Context, _ Empty) (tool.Result, error) {
	for {
		b := make([]byte, 1<<20)
		b[0] = 1
		keep = append(keep, b)
	}
})

//go:wasmexport description
func description() int32 { return tool.ExportDescription("") }

//go:wasmexport schema
func schema() int32 { return tool.ExportSchema("") }

//go:wasmexport execute
func execute() int32 { return tool.ExportExecute("") }

func main() {}
