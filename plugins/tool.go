package plugins

import (
	"context"

	"github.com/toolhost/toolhost/runtime"
)

// wasmTool is one tool of a module, a runtime.Tool like any other: the
// registry's wrapper validates its arguments against the guest's schema,
// asks permissions, truncates its output and runs hooks, exactly as for a
// built-in tool.
type wasmTool struct {
	id     string
	export string // "" for the module's main tool, else N
	module *module
	meta   toolMeta
}

// ID returns the tool id: the file name, or <file>_<N>.
func (t *wasmTool) ID() string { return t.id }

// Init returns the cached description and schema; it never compiles.
func (t *wasmTool) Init(context.Context, runtime.InitContext) (*runtime.Definition, error) {
	return &runtime.Definition{
		Description: t.meta.Description,
		Parameters:  t.meta.Schema,
		Execute:     t.execute,
	}, nil
}

// Module returns the path of the .wasm file providing the tool.
func (t *wasmTool) Module() string { return t.module.path }

// Bundle says the tool comes from a wasm module.
func (t *wasmTool) Bundle() runtime.Source { return runtime.SourceWasm }

var _ runtime.Tool = (*wasmTool)(nil)
