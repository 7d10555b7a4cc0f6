//go:build wasip1

// Command badschema returns a schema that is not a JSON Schema.
package main

import (
	"guests/raw"

	tool "github.com/toolhost/toolhost/sdk-guest/go"
)

type Empty struct{}

var _ = tool.Main("Bad schema.", func(ctx *tool.Context, _ Empty) (tool.Result, error) { return tool.Text(""), nil })

//go:wasmexport description
func description() int32 { return tool.ExportDescription("") }

//go:wasmexport schema
func schema() int32 {
	raw.Output([]byte(`{"type": "object", "properties": {"x": {"type": 5}}}`))
	return 0
}

//go:wasmexport execute
func execute() int32 { return tool.ExportExecute("") }

func main() {}
