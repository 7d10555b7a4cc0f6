package host

import (
	"context"
	"log/slog"
	"os"
	"slices"

	"github.com/toolhost/toolhost/builtins"
	"github.com/toolhost/toolhost/hostfns"
	"github.com/toolhost/toolhost/internal/confine/sandbox"
	"github.com/toolhost/toolhost/internal/confine/trust"
	"github.com/toolhost/toolhost/internal/engines/lsp"
	"github.com/toolhost/toolhost/internal/lifecycle"
	"github.com/toolhost/toolhost/mcp/client"
	"github.com/toolhost/toolhost/plugins/js"
	"github.com/toolhost/toolhost/plugins/pkg"
	"github.com/toolhost/toolhost/plugins/python"
	"github.com/toolhost/toolhost/plugins/wasm"
	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/config"
	"github.com/toolhost/toolhost/runtime/permission"
	"github.com/toolhost/toolhost/runtime/session"
	"github.com/toolhost/toolhost/runtime/session/configured"
	"github.com/toolhost/toolhost/runtime/source"
)

// Options configure New. Zero values give the defaults a user gets from
// the CLI: the current directory as project, config from the usual
// directories, state under $XDG_DATA_HOME/toolhost, every tool source.
type Options struct {
	// Directory is the working directory. Default: the process's.
	Directory string
	// Asker answers permission requests a rule leaves at "ask". Nil: they
	// are refused with a message saying how to allow them.
	Asker permission.Asker
	// Questioner lets the question tool ask a person. Nil: not offered.
	Questioner runtime.Questioner
	Logger     *slog.Logger
	// DataDir overrides $XDG_DATA_HOME/toolhost.
	DataDir string
	// CacheDir overrides $XDG_CACHE_HOME/toolhost.
	CacheDir string
	// Env reads environment variables. Default os.Getenv.
	Env func(string) string
	// Off leaves out the tool sources of these kinds (runtime.SourceWasm,
	// SourceJS, SourcePython, SourcePlugin, SourceMCP, SourceBuiltin).
	Off []runtime.Source
	// NoWasm leaves out every source of tool files: wasm, JS and Python
	// tools and plugins, as it did before each source had its own switch.
	// To leave out wasm modules alone, list runtime.SourceWasm in Off.
	NoWasm bool
	// Sources open more tool sources, loaded after the host's own (an
	// embedder's), from the same source.Env; Close closes them, and a
	// watching host follows those that are a source.Watcher.
	Sources []source.Opener
	// Watch keeps every source that can change while the host runs (wasm,
	// JS and Python tool files, plugin folders) in step with its folders
	// until Close: files added, replaced or removed take effect within
	// about a second, and calls in flight on a replaced module finish on
	// the old one. Long-running front ends (the MCP server, the agent
	// loop) set it; one-shot commands need not.
	Watch bool
	// WrapStore, when set, decorates the session store before anything
	// uses it (the MCP server times its operations for /metrics).
	WrapStore func(session.Store) session.Store
	// HostFuncs are host functions of the embedder's own, made with
	// hostfns.Define, which wasm, JS and Python tools call by name (docs/
	// hostfns.md); each call is checked against the function's permission
	// by the same rules and asker as every other. Two of one name fail New.
	HostFuncs []hostfns.Def
}

// Host is an assembled toolhost.
type Host struct {
	Registry *runtime.Registry
	Config   *config.Config
	// Dirs are the config directories, lowest precedence first.
	Dirs []string
	// Files are the config files read, in merge order.
	Files []string
	Store session.Store
	// Directory is the absolute working directory; Worktree the project
	// root found from it.
	Directory string
	Worktree  string
	// LoadErrors lists tool files, packages and servers that failed to
	// load and were skipped.
	LoadErrors []runtime.LoadError
	// GrantProblems lists "wasm" grants withheld from the tool that now
	// holds their id, since the config that made them may not grant its
	// file (runtime.GrantProblems); the tools themselves loaded.
	GrantProblems []runtime.LoadError
	// Plugins are the plugins loaded by New, in hook order. A watching
	// host reloads folder plugins later; the registry then holds their
	// current tools and hooks, this list stays as it was.
	Plugins []*wasm.Plugin

	sources []source.Source // in the order loaded
	engine  *wasm.Shared    // the wasm tools' and plugins' engine, closed after them
	plugins *pkg.Source
	life    *lifecycle.Lifecycle // what Close undoes, and the watcher it stops
	trust   *trust.Project       // whether the project's own config and tools are trusted
	funcs   *hostfns.Set         // Options.HostFuncs, handed to every guest engine
}

// New loads config and assembles the registry from every tool source.
// When a step fails, what the earlier steps opened (the session store,
// compiled modules, MCP servers) is released before New returns the
// error. New changes no process-wide setting.
func New(ctx context.Context, opts Options) (h *Host, err error) {
	opts = withDefaults(opts)
	funcs, err := hostfns.NewSet(opts.HostFuncs...) // its errors name the function
	if err != nil {
		return nil, err
	}
	pt, loaded, err := trust.OpenProject(config.DirOptions{Directory: opts.Directory, Env: opts.Env}, opts.DataDir, opts.Logger)
	if err != nil {
		return nil, err
	}
	if loaded.Config.Sandbox.On() {
		sandbox.WarnIfUnavailable(opts.Logger)
	}
	life := lifecycle.New()
	defer life.CloseOnError(ctx, &err) // a later step failed: close what the earlier ones opened
	store, err := configured.Open(ctx, loaded.Config, configured.Options{DataDir: opts.DataDir, Env: opts.Env, Logger: opts.Logger, Wrap: opts.WrapStore})
	if err != nil {
		return nil, err
	}
	life.OnClose("session store", func(context.Context) error { return store.Close() })
	h = &Host{Config: loaded.Config, Dirs: loaded.Dirs, Files: loaded.Files, Store: store, Directory: pt.Dirs().Directory, Worktree: pt.Dirs().Worktree, life: life, trust: pt, funcs: funcs}
	// Language servers for the edit tools' diagnostics, started when an edit needs one.
	servers := lsp.New(lsp.Options{Config: loaded.Config.LSP, Logger: opts.Logger})
	h.life.OnClose("language servers", servers.Close)
	h.Registry, err = runtime.NewRegistry(runtime.Options{
		Config: loaded.Config, Store: store, Asker: opts.Asker, Questioner: opts.Questioner, Diagnoser: servers,
		Logger: opts.Logger, DataDir: opts.DataDir, CacheDir: opts.CacheDir, Directory: h.Directory, Worktree: h.Worktree,
	})
	if err != nil {
		return nil, err
	}
	if err := h.load(ctx, opts); err != nil {
		return nil, err
	}
	if opts.Watch { // every source that changes, followed from one loop until Close
		h.life.Go(func(ctx context.Context) {
			source.FollowInto(ctx, h.Registry, h.sources, source.FollowOptions{Logger: opts.Logger})
		})
	}
	return h, nil
}

// withDefaults fills what opts leaves zero but Directory (OpenProject's).
func withDefaults(opts Options) Options {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Env == nil {
		opts.Env = os.Getenv
	}
	if opts.DataDir == "" {
		opts.DataDir = runtime.DefaultDataDir()
	}
	if opts.CacheDir == "" {
		opts.CacheDir = runtime.DefaultCacheDir(opts.Env)
	}
	if opts.NoWasm {
		opts.Off = append(opts.Off, runtime.SourceWasm, runtime.SourceJS, runtime.SourcePython, runtime.SourcePlugin)
	}
	return opts
}

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
	{runtime.SourceMCP, func(_ *Host, env source.Env) source.Source { return client.SourceFor(env) }},
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
	h.engine = wasm.NewShared(wasm.EngineOptionsFor(env, h.funcs))
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
		l, err := source.LoadInto(ctx, h.Registry, s)
		if err != nil {
			return err
		}
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

// Tools lists the tools offered to agent on model ("" for the default
// agent and any model), with their descriptions and argument schemas as a
// model should see them.
func (h *Host) Tools(ctx context.Context, model, agent string) ([]runtime.ToolInfo, error) {
	return h.Registry.Tools(ctx, model, agent)
}

// Call runs one tool call through the wrapper every call takes: the gate,
// hooks, validation, permissions, truncation and logging.
func (h *Host) Call(ctx context.Context, c runtime.Call) (runtime.Result, error) {
	return h.Registry.Call(ctx, c)
}

// Close stops the watchers and waits for them, then closes, in reverse
// order of opening, MCP servers, compiled wasm modules (waiting for
// compiles under way; calls in flight finish first), the language servers
// (asked to shut down, then ended) and the session store. ctx bounds the
// waiting: when it ends, what is still busy is left open and the error
// says so. Calling Close again returns the first call's result.
func (h *Host) Close(ctx context.Context) error { return h.life.Close(ctx) }

// TrustStatus is the project's trust as New found it: Trusted false means
// the project's config files kept only their deny rules, the MCP and
// language servers they name were not started and the project's tool
// files are listed but not loaded. Notice is the line to show a person.
func (h *Host) TrustStatus() trust.Status { return h.trust.Status }

// TrustReviewer reviews and trusts the host's project now, for a front
// end that lets a person trust it (the inbox page).
func (h *Host) TrustReviewer() trust.Reviewer { return h.trust.Reviewer() }

// WasmPools returns the instance pools of the wasm modules (tools and
// plugins) compiled so far: per module, instances idle and in use. Nil
// without wasm tools and plugins.
func (h *Host) WasmPools() []wasm.PoolSize { return h.engine.Pools() }

// UnknownConfigKeys returns the permission keys and tool switches in the
// configuration that name nothing this host knows (runtime.UnknownKey says
// where and suggests the likely name). Call it once every tool the front
// end adds (task) is registered. Tools that failed to load still count as
// known (runtime.KnownWithoutTools), so each problem is reported once, as
// the load error it is.
func (h *Host) UnknownConfigKeys() []runtime.UnknownKey {
	return h.Registry.UnknownConfigKeys(runtime.KnownWithoutTools(h.Config, h.LoadErrors)...)
}
