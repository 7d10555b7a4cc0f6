package host

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"

	"github.com/toolhost/toolhost/builtins"
	"github.com/toolhost/toolhost/hostfns"
	"github.com/toolhost/toolhost/internal/lsp"
	"github.com/toolhost/toolhost/internal/sandbox"
	"github.com/toolhost/toolhost/plugins"
	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/config"
	"github.com/toolhost/toolhost/runtime/permission"
	"github.com/toolhost/toolhost/runtime/session"
)

// Options configure New. Zero values give the defaults a user gets from
// the CLI: the current directory as project, config from the usual
// directories, state under $XDG_DATA_HOME/toolhost.
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
	// NoWasm skips wasm tool discovery.
	NoWasm bool
	// Watch keeps the wasm tools and plugins in step with the config
	// directories' tool/, tools/, plugin/ and plugins/ folders until
	// Close: modules and plugins added, replaced or removed take effect
	// within about a second, and calls in flight on a replaced module
	// finish on the old one. Long-running front ends (the
	// MCP server, the agent loop) set it; one-shot commands need not.
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
	// LoadErrors lists tool modules that failed to load and were skipped.
	LoadErrors []runtime.LoadError
	// GrantProblems lists "wasm" grants withheld from the tool that now
	// holds their id, since the config that made them may not grant its
	// file (grants.go); the tools themselves loaded.
	GrantProblems []runtime.LoadError
	// Plugins are the plugins loaded by New, in hook order. A watching
	// host reloads folder plugins later; the registry then holds their
	// current tools and hooks, this list stays as it was.
	Plugins []*plugins.Plugin

	wasm          *plugins.Engine
	wasmTools     []runtime.Tool    // the tools addWasm found, for grants.go
	js            *jsTools          // TypeScript and JavaScript tool files (js.go)
	py            *pyTools          // Python tool files (python.go)
	lockedPlugins []*plugins.Plugin // from toolhost.lock; not reloaded
	pluginMu      sync.Mutex        // guards folderPlugins after New
	folderPlugins []*plugins.Plugin // from plugin/ and plugins/; reloaded by a watching host
	life          lifecycle         // what Close undoes, and the watchers it stops (lifecycle.go)
	trust         *projectTrust     // whether the project's own config and tools are trusted (trust.go)
	funcs         *hostfns.Set      // Options.HostFuncs, handed to every guest engine
}

// New loads config and assembles the registry. When a step fails, what the
// earlier steps opened (the session store, compiled modules, MCP servers)
// is released before New returns the error. New changes no process-wide
// setting.
func New(ctx context.Context, opts Options) (h *Host, err error) {
	if opts.Directory == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("working directory: %w", err)
		}
		opts.Directory = wd
	}
	abs, err := filepath.Abs(opts.Directory)
	if err != nil {
		return nil, fmt.Errorf("working directory %s: %w", opts.Directory, err)
	}
	opts.Directory = abs
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
		opts.CacheDir = DefaultCacheDir(opts.Env)
	}
	funcs, err := hostfns.NewSet(opts.HostFuncs...)
	if err != nil {
		return nil, fmt.Errorf("host functions: %w", err)
	}
	worktree := config.FindWorktree(opts.Directory)
	pt := checkTrust(opts, worktree)
	loaded, err := pt.load(opts, worktree)
	if err != nil {
		return nil, err
	}
	if loaded.Config.Sandbox.On() {
		if _, err := sandbox.Available(); err != nil {
			opts.Logger.Warn("bash sandbox unavailable; commands run under the permission rules alone", "err", err)
		}
	}
	store, err := openStore(ctx, loaded.Config, opts)
	if err != nil {
		return nil, err
	}
	if opts.WrapStore != nil {
		store = opts.WrapStore(store)
	}
	h = &Host{Config: loaded.Config, Dirs: loaded.Dirs, Files: loaded.Files, Store: store, Directory: opts.Directory, Worktree: worktree, trust: pt, funcs: funcs}
	h.life.init()
	h.life.onClose("session store", func(context.Context) error { return store.Close() })
	defer func() {
		if err != nil {
			h.Close(context.WithoutCancel(ctx))
			h = nil
		}
	}()
	// Language servers for the edit tools' diagnostics: none runs until
	// an edit needs one; Close shuts down those started.
	servers := lsp.New(lsp.Options{Config: loaded.Config.LSP, Logger: opts.Logger})
	h.life.onClose("language servers", servers.Close)
	reg, err := runtime.NewRegistry(runtime.Options{
		Config:     loaded.Config,
		Store:      store,
		Asker:      opts.Asker,
		Questioner: opts.Questioner,
		Diagnoser:  servers,
		Logger:     opts.Logger,
		DataDir:    opts.DataDir,
		CacheDir:   opts.CacheDir,
		Directory:  opts.Directory,
		Worktree:   worktree,
	})
	if err != nil {
		return nil, err
	}
	h.Registry = reg
	reg.Add(runtime.SourceBuiltin, builtins.All(builtins.Options{ConfigDirs: loaded.Dirs})...)
	// The task tool runs subagents through an agent loop, which is a front
	// end: the front end that has one adds builtins.Task with its runner.
	reg.Add(runtime.SourceBuiltin, builtins.WebSearch(), builtins.CodeSearch(), builtins.LSP())
	var pluginsAt plugins.PluginFolders
	if opts.Watch && !opts.NoWasm {
		// Before the plugins load: what changes while they do is reloaded.
		pluginsAt = plugins.LookAtPluginFolders(h.watchedDirs(opts.Directory))
	}
	if !opts.NoWasm {
		if err := h.addWasm(ctx, opts); err != nil {
			return nil, err
		}
		h.addJS(ctx, opts)
		h.addPython(ctx, opts)
		h.addPlugins(ctx, opts)
		h.addUntrustedStubs()
		h.noteWithheldGrants(opts.Logger, h.grantedTools())
	}
	h.addMCP(ctx, opts)
	if opts.Watch {
		h.watch(opts.Directory, opts.Logger, pluginsAt)
	}
	return h, nil
}

// DefaultCacheDir is $XDG_CACHE_HOME/toolhost, else ~/.cache/toolhost.
func DefaultCacheDir(env func(string) string) string {
	if d := env("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "toolhost")
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "toolhost")
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
