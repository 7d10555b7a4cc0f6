// Command badtraits declares traits toolhost must refuse: a permission
// that is not a permission key. Loading it fails with a message naming the
// export and what to fix.
package main

import (
	"guests/raw"

	tool "github.com/toolhost/toolhost/sdk-guest/go"
)

var _ = tool.Main("Declares nonsense.", func(ctx *tool.Context, a struct{}) (tool.Result, error) {
	return tool.Text("ran"), nil
})

//go:wasmexport description
func description() int32 { return tool.ExportDescription("") }

//go:wasmexport schema
func schema() int32 { return tool.ExportSchema("") }

//go:wasmexport execute
func execute() int32 { return tool.ExportExecute("") }

//go:wasmexport traits
func traits() int32 {
	raw.Output([]byte(`{"permission": "Edit Everything!"}`))
	return 0
}

func main() {}
