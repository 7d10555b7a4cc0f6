// Command declared is a tool that declares its traits: the main tool says
// it is governed by "edit" with patterns from its path argument and that
// it destroys what it touches; the named tool bad_traits declares
// something toolhost must refuse (a permission that is not a key).
package main

import (
	"guests/raw"

	tool "github.com/toolhost/toolhost/sdk-guest/go"
)

type Args struct {
	Path string `json:"path"`
}

var _ = tool.Main("Pretend to overwrite a file.", func(ctx *tool.Context, a Args) (tool.Result, error) {
	return tool.Text("overwrote " + a.Path), nil
})

//go:wasmexport description
func description() int32 { return tool.ExportDescription("") }

//go:wasmexport schema
func schema() int32 { return tool.ExportSchema("") }

//go:wasmexport execute
func execute() int32 { return tool.ExportExecute("") }

//go:wasmexport traits
func traits() int32 {
	raw.Output([]byte(`{"permission": "edit", "patterns_from": ["path"], "destructive": true}`))
	return 0
}

func main() {}
