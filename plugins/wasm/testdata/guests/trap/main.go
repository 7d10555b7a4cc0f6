// Command trap panics outside the SDK's recovery, which traps.
package main

import tool "github.com/toolhost/toolhost/sdk-guest/go"

type Empty struct{}

var _ = tool.Main("Trap.", func(ctx *tool.Context, _ Empty) (tool.Result, error) { return tool.Text(""), nil })

//go:wasmexport description
func description() int32 { return tool.ExportDescription("") }

//go:wasmexport schema
func schema() int32 { return tool.ExportSchema("") }

//go:wasmexport execute
func execute() int32 { panic("guest exploded") }

func main() {}
