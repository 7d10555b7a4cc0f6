package wasm

import (
	"context"

	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/config"
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

// Traits are what the module declares through its traits export, as a
// claim (see traits.go); the zero declaration when it exports none.
func (t *wasmTool) Traits() runtime.Traits { return t.meta.Traits.runtimeTraits() }

// Module returns the path of the .wasm file providing the tool.
func (t *wasmTool) Module() string { return t.module.path }

// Source says the tool comes from a wasm module.
func (t *wasmTool) Source() runtime.Source { return runtime.SourceWasm }

var (
	_ runtime.Tool     = (*wasmTool)(nil)
	_ runtime.Declarer = (*wasmTool)(nil)
)

// GrantFile is the tool as "wasm" grants see it: its names and module
// file (config.Config.WasmFor).
func (t *wasmTool) GrantFile() config.ToolFile { return t.module.grantFile(t.id) }
