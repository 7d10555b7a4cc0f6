package wasm

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	goruntime "runtime"
	"sort"
	"sync"
	"time"

	"github.com/tetratelabs/wazero"

	"github.com/toolhost/toolhost/hostfns"
	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/config"
	"github.com/toolhost/toolhost/runtime/session"
)

// EngineOptions configure an Engine. The zero value works: cache in the user
// cache directory, default limits, logs discarded.
type EngineOptions struct {
	// CacheDir holds the wazero compilation cache and the description and
	// schema cache. Default $XDG_CACHE_HOME/toolhost/wasm; "-" disables
	// caching on disk.
	CacheDir string
	// Config grants capabilities and sets limits per tool ("wasm": {…}).
	// It is read at every call, so a host may swap it for a reloaded one
	// with SetConfig.
	Config *config.Config
	// Logger receives load problems and guest log entries.
	Logger *slog.Logger
	// PollInterval is how often Watch checks the tool folders. Default
	// DefaultPollInterval (1 s).
	PollInterval time.Duration
	// HookTimeout bounds each call of a plugin hook (the guest's running
	// time and the wait for an instance). Default DefaultHookTimeout (5 s).
	HookTimeout time.Duration
	// HostFuncs are the embedder's host functions guests reach through
	// call (hostfns.Define); nil: none.
	HostFuncs *hostfns.Set
}

// Engine loads wasm tool modules and runs their calls. It is safe for
// concurrent use; Close it to free compiled modules.
type Engine struct {
	log          *slog.Logger
	cacheDir     string
	pollInterval time.Duration
	cache        wazero.CompilationCache
	state        session.Memory // tool state of session-less calls
	index        fileIndex

	hookTimeout time.Duration
	funcs       *hostfns.Set // EngineOptions.HostFuncs

	mu          sync.Mutex
	cfg         *config.Config
	modules     map[string]*module // by path, as last loaded
	pluginMods  []*module          // modules of loaded plugins
	pluginHooks []*Hooks

	life lifecycle // Close waits for compiles and watches (lifecycle.go)

	// Test seams: noEvents makes Watch poll alone; compiling, when set,
	// is called as each compile starts.
	noEvents  bool
	compiling func()
}

// NewEngine returns an Engine. Creating it is cheap: nothing is compiled until
// a module is loaded without a cached description, or first called.
func NewEngine(opts EngineOptions) *Engine {
	h := &Engine{log: opts.Logger, cfg: opts.Config, modules: map[string]*module{}, pollInterval: opts.PollInterval, hookTimeout: opts.HookTimeout, funcs: opts.HostFuncs}
	h.life.init()
	if h.hookTimeout <= 0 {
		h.hookTimeout = DefaultHookTimeout
	}
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	h.cacheDir = opts.CacheDir
	if h.cacheDir == "" {
		if dir, err := os.UserCacheDir(); err == nil {
			h.cacheDir = filepath.Join(dir, "toolhost", "wasm")
		}
	}
	if h.cacheDir == "-" {
		h.cacheDir = ""
	}
	if h.cacheDir != "" {
		h.index.path = filepath.Join(h.cacheDir, "index.json")
		c, err := wazero.NewCompilationCacheWithDir(filepath.Join(h.cacheDir, "compiled"))
		if err != nil {
			h.log.Warn("wasm compilation cache disabled", "dir", h.cacheDir, "err", err)
		} else {
			h.cache = c
		}
	}
	return h
}

// SetConfig replaces the configuration used by later calls.
func (h *Engine) SetConfig(cfg *config.Config) {
	h.mu.Lock()
	h.cfg = cfg
	h.mu.Unlock()
}

func (h *Engine) config() *config.Config {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.cfg
}

// ToolDirs returns the tool folders of a config directory, in the order
// they are searched: tool/ then tools/.
func ToolDirs(configDir string) []string {
	return []string{filepath.Join(configDir, "tool"), filepath.Join(configDir, "tools")}
}

// Files lists the tool modules of the config directories dirs, in order:
// for each directory, tool/*.wasm then tools/*.wasm, sorted by name.
func Files(dirs []string) []string {
	var out []string
	for _, d := range dirs {
		for _, td := range ToolDirs(d) {
			matches, _ := filepath.Glob(filepath.Join(td, "*.wasm"))
			sort.Strings(matches)
			out = append(out, matches...)
		}
	}
	return out
}

// Discover loads every tool module of the config directories dirs (see
// Files) and returns their tools in that order, and one runtime.LoadError per
// module that could not be loaded. Broken modules are skipped, never
// fatal, and not logged: the caller reports them (the CLI once, readably;
// Watch logs those of a reload). A tool id provided twice keeps the later
// directory's tool, as later config directories override earlier ones.
//
// Modules whose description and schema are cached (by sha256) cost a file
// read and a hash; others are compiled, in parallel, and their compiled
// form is kept for the first call.
func (h *Engine) Discover(ctx context.Context, dirs []string) ([]runtime.Tool, []runtime.LoadError) {
	files := Files(dirs)
	ctx, done, err := h.begin(ctx)
	if err != nil {
		errs := make([]runtime.LoadError, len(files))
		for i, f := range files {
			errs[i] = runtime.LoadError{Source: runtime.SourceWasm, File: f, Reason: err.Error()}
		}
		return nil, errs
	}
	defer done()
	mods := make([]*module, len(files))
	errs := make([]error, len(files))
	sem := make(chan struct{}, max(1, goruntime.GOMAXPROCS(0)))
	var wg sync.WaitGroup
	for i, f := range files {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			mods[i], errs[i] = h.loadOrReuse(ctx, f)
		}()
	}
	wg.Wait()
	h.index.flush()

	var tools []runtime.Tool
	var loadErrs []runtime.LoadError
	index := map[string]int{}
	for i, m := range mods {
		if errs[i] != nil {
			loadErrs = append(loadErrs, runtime.LoadError{Source: runtime.SourceWasm, File: files[i], Reason: errs[i].Error()})
			continue
		}
		for _, t := range m.tools() {
			if j, dup := index[t.ID()]; dup {
				h.log.Info("wasm tool overridden", "tool", t.ID(), "by", m.path)
				tools[j] = t
				continue
			}
			index[t.ID()] = len(tools)
			tools = append(tools, t)
		}
	}
	h.mu.Lock()
	for i, m := range mods {
		if m != nil {
			h.modules[files[i]] = m
		}
	}
	h.mu.Unlock()
	return tools, loadErrs
}

// loadOrReuse returns the module already loaded from path when the file
// has not changed, else loads it.
func (h *Engine) loadOrReuse(ctx context.Context, path string) (*module, error) {
	h.mu.Lock()
	old := h.modules[path]
	h.mu.Unlock()
	if old != nil {
		if st, err := os.Stat(path); err == nil && (fileInfo{st.Size(), st.ModTime().UnixNano()}) == old.info {
			return old, nil
		}
	}
	m, err := h.load(ctx, path)
	if err != nil {
		return nil, err
	}
	return m, nil
}

// tools returns the module's tools.
func (m *module) tools() []runtime.Tool {
	out := make([]runtime.Tool, 0, len(m.meta.Tools))
	for _, tm := range m.meta.Tools {
		out = append(out, &wasmTool{id: m.toolID(tm.Export), export: tm.Export, module: m, meta: tm})
	}
	return out
}
