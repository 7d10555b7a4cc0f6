// Command missing exports description and schema but no execute.
package main

import tool "github.com/toolhost/toolhost/sdk-guest/go"

type Empty struct{}

var _ = tool.Main("Half a tool.", func(ctx *tool.Context, _ Empty) (tool.Result, error) { return tool.Text(""), nil })

//go:wasmexport description
func description() int32 { return tool.ExportDescription("") }

//go:wasmexport schema
func schema() int32 { return tool.ExportSchema("") }

func main() {}
