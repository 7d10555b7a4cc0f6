// Command descpanic traps in description.
package main

import tool "github.com/toolhost/toolhost/sdk-guest/go"

type Empty struct{}

var _ = tool.Main("Never seen.", func(ctx *tool.Context, _ Empty) (tool.Result, error) { return tool.Text(""), nil })

//go:wasmexport description
func description() int32 { panic("no description for you") }

//go:wasmexport schema
func schema() int32 { return tool.ExportSchema("") }

//go:wasmexport execute
func execute() int32 { return tool.ExportExecute("") }

func main() {}
