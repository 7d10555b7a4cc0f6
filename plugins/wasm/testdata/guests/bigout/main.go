//go:build wasip1

// Command bigout returns 100 MB of output.
package main

import (
	"guests/raw"

	tool "github.com/toolhost/toolhost/sdk-guest/go"
)

type Empty struct{}

var _ = tool.Main("Return 100 MB.", func(ctx *tool.Context, _ Empty) (tool.Result, error) { return tool.Text(""), nil })

//go:wasmexport description
func description() int32 { return tool.ExportDescription("") }

//go:wasmexport schema
func schema() int32 { return tool.ExportSchema("") }

//go:wasmexport execute
func execute() int32 {
	const n = 100 << 20
	raw.OutputSet(raw.Alloc(n), n) // zero-filled: cheap to make, not to carry
	return 0
}

func main() {}
