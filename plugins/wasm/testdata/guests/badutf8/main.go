//go:build wasip1

// Command badutf8 returns bytes that are not UTF-8.
package main

import (
	"guests/raw"

	tool "github.com/toolhost/toolhost/sdk-guest/go"
)

type Empty struct{}

var _ = tool.Main("Return binary.", func(ctx *tool.Context, _ Empty) (tool.Result, error) { return tool.Text(""), nil })

//go:wasmexport description
func description() int32 { return tool.ExportDescription("") }

//go:wasmexport schema
func schema() int32 { return tool.ExportSchema("") }

//go:wasmexport execute
func execute() int32 {
	raw.Output([]byte("ok \xff\xfe\x00 binary"))
	return 0
}

func main() {}
