package host

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/toolhost/toolhost/builtins"
	"github.com/toolhost/toolhost/mcp/client"
	"github.com/toolhost/toolhost/plugins/js"
	"github.com/toolhost/toolhost/plugins/pkg"
	"github.com/toolhost/toolhost/plugins/python"
	"github.com/toolhost/toolhost/plugins/wasm"
	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/source"
)

// sources are the host's tool sources, lowest precedence first
// (runtime.Source), each opened with the options it takes from env.
// Adding a source is one line here. The task tool, which runs subagents
// through an agent loop, is added by the front end that has one.
var sources = []struct {
	kind runtime.Source
	open func(h *Host, env source.Env) source.Source
}{
	{runtime.SourceBuiltin, func(_ *Host, env source.Env) source.Source {
		return builtins.Source(builtins.Options{ConfigDirs: env.Dirs})
	}},
	{runtime.SourceWasm, func(h *Host, env source.Env) source.Source { return wasm.NewToolSource(h.engine.Engine(), env) }},
	{runtime.SourceJS, func(h *Host, env source.Env) source.Source { return js.NewSource(js.OptionsFor(env, h.funcs)) }},
	{runtime.SourcePython, func(h *Host, env source.Env) source.Source { return python.NewSource(python.OptionsFor(env, h.funcs)) }},
	{runtime.SourcePlugin, func(h *Host, env source.Env) source.Source {
		h.plugins = pkg.NewSource(pkg.SourceOptions{Engine: h.engine.Engine(), Env: env, ProjectTrusted: h.trust.Status.Trusted})
		return h.plugins
	}},
	{runtime.SourceMCP, func(_ *Host, env source.Env) source.Source {
		return client.NewSource(env.Config.MCP, client.OptionsFor(env))
	}},
}

// load loads every source into the registry, in order: its tools, its
// hooks and its load errors. Then an untrusted project's tool files are
// listed as stubs, and grants withheld from the tools loaded are noted.
func (h *Host) load(ctx context.Context, opts Options) error {
	env := source.Env{
		Config: h.Config, Dirs: h.Dirs, ToolDirs: h.trust.ToolDirs(h.Dirs), WatchDirs: h.trust.WatchDirs(h.Dirs),
		Directory: h.Directory, Worktree: h.Worktree, CacheDir: opts.CacheDir, Getenv: opts.Env,
		Logger: opts.Logger, Watch: opts.Watch, Trust: h.trust,
	}
	// The engine wasm tools and plugins share, made when the first of
	// them needs it and closed after them.
	h.engine = wasm.NewShared(wasm.EngineOptions{CacheDir: filepath.Join(opts.CacheDir, "wasm"), Config: h.Config, Logger: opts.Logger, HostFuncs: h.funcs})
	h.life.OnClose("wasm modules", h.engine.Close)
	var open []source.Opener
	for _, src := range sources {
		if !slices.Contains(opts.Off, src.kind) {
			open = append(open, func(env source.Env) source.Source { return src.open(h, env) })
		}
	}
	open = append(open, opts.Sources...)
	var tools []runtime.Tool
	for _, o := range open {
		s := o(env)
		h.sources = append(h.sources, s)
		h.life.OnClose(string(s.Kind())+" tools", s.Close)
		l, err := s.Load(ctx)
		if err != nil {
			return fmt.Errorf("load %s tools: %w", s.Kind(), err)
		}
		source.Add(h.Registry, s.Kind(), l)
		h.LoadErrors = append(h.LoadErrors, l.Errors...)
		tools = append(tools, l.Tools...)
	}
	if h.plugins != nil {
		h.Plugins = h.plugins.Plugins()
	}
	if !opts.NoWasm {
		h.trust.AddStubs(h.Registry)
		h.GrantProblems = runtime.GrantProblems(h.Config, runtime.GrantFiles(tools))
		for _, p := range h.GrantProblems {
			opts.Logger.Warn("tool grant withheld", "file", p.File, "reason", p.Reason)
		}
	}
	return nil
}

// WasmPools returns the instance pools of the wasm modules (tools and
// plugins) compiled so far: per module, instances idle and in use. Nil
// without wasm tools and plugins.
func (h *Host) WasmPools() []wasm.PoolSize { return h.engine.Pools() }
