package python

import (
	"context"
	"log/slog"
	"path/filepath"
	"sync"

	"github.com/toolhost/toolhost/hostfns"
	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/config"
	"github.com/toolhost/toolhost/runtime/source"
)

// SourceOptions configure a Source.
type SourceOptions struct {
	// Dirs are the config directories whose tool folders are read.
	Dirs []string
	// CacheDir is the host's cache directory: the engine is kept in
	// CacheDir/engines, compiled code and schemas in CacheDir/py.
	CacheDir string
	// Config and Worktree are what a warmed instance is started with.
	Config   *config.Config
	Worktree string
	// Warm starts each tool's instances ahead of its first call (a
	// long-running host); otherwise none is started for a next call.
	Warm   bool
	Logger *slog.Logger
	// Trust drops an untrusted project's files (source.Trust.AdmitFiles).
	Trust source.Trust
	// HostFuncs are the embedder's host functions the tools may call
	// (ctx.call_host); nil: none.
	HostFuncs *hostfns.Set
}

// OptionsFor is what a host gives its Python source: the tool folders of
// env.ToolDirs, or of env.WatchDirs for a watching host (as the wasm
// watcher does: a project .toolhost made after start counts), warmed when
// the host watches, and the embedder's host functions funcs (nil: none).
func OptionsFor(env source.Env, funcs *hostfns.Set) SourceOptions {
	dirs := env.ToolDirs
	if env.Watch {
		dirs = env.WatchDirs
	}
	return SourceOptions{Dirs: dirs, CacheDir: env.CacheDir, Config: env.Config, Worktree: env.Worktree,
		Warm: env.Watch, Logger: env.Logger, Trust: env.Trust, HostFuncs: funcs}
}

// Source is the Python tool files (tool/*.py, Files) as a tool source
// (runtime.SourcePython), run on one engine runtime. The engine is
// fetched with npm the first time a file is found; when that fails, every
// Python file gets the same load error and everything else still loads.
// Listing reads each file's tools from the schema cache, so it starts
// Python only for a new or changed file. It is a source.Watcher: a
// watching host reloads a file added, edited or removed.
type Source struct {
	opts     SourceOptions
	cacheDir string // <cache>/py
	log      *slog.Logger

	mu     sync.Mutex
	rt     *Runtime // nil until a file is found
	loaded map[string]*loadedFile
}

type loadedFile struct {
	stamp string
	file  *File
	ids   []string
}

// NewSource returns the Python tool source of opts.
func NewSource(opts SourceOptions) *Source {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Source{opts: opts, cacheDir: filepath.Join(opts.CacheDir, "py"), log: log, loaded: map[string]*loadedFile{}}
}

// Kind is runtime.SourcePython.
func (s *Source) Kind() runtime.Source { return runtime.SourcePython }

// Load loads every file.
func (s *Source) Load(ctx context.Context) (source.Loaded, error) {
	c, errs := s.sync(ctx)
	return source.Loaded{Tools: c.Add, Errors: errs}, nil
}

// Folders are the tool folders of the directories.
func (s *Source) Folders() []string {
	var out []string
	for _, d := range s.opts.Dirs {
		out = append(out, filepath.Join(d, "tool"), filepath.Join(d, "tools"))
	}
	return out
}

// Look loads new and changed files and drops removed ones.
func (s *Source) Look(ctx context.Context, apply func(source.Change)) {
	c, errs := s.sync(ctx)
	for _, e := range errs { // as the JS source's Look
		s.log.Warn("Python tool not loaded", "file", e.File, "err", e.Reason)
	}
	apply(c)
}

// sync loads new and changed files and drops removed ones.
func (s *Source) sync(ctx context.Context) (source.Change, []runtime.LoadError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var c source.Change
	var errs []runtime.LoadError
	files := source.AdmitFiles(s.opts.Trust, Files(s.opts.Dirs))
	var engineErr error
	if len(files) > 0 && s.rt == nil {
		engineErr = s.start(ctx)
	}
	seen := map[string]bool{}
	for _, f := range files {
		seen[f] = true
		stamp := source.Stamp(f)
		if lf, ok := s.loaded[f]; ok {
			if lf.stamp == stamp {
				continue
			}
			c.Remove = append(c.Remove, lf.ids...)
			lf.file.Close(ctx)
			delete(s.loaded, f)
		}
		tools, err := s.load(ctx, f)
		if engineErr != nil {
			tools, err = nil, engineErr
		}
		if err != nil {
			errs = append(errs, runtime.LoadError{Source: runtime.SourcePython, File: f, Reason: err.Error()})
			continue
		}
		lf := &loadedFile{stamp: stamp, file: tools[0].File()}
		for _, t := range tools {
			c.Add = append(c.Add, t)
			lf.ids = append(lf.ids, t.ID())
			if s.opts.Warm {
				t.Warm(s.opts.Config, s.opts.Worktree)
			}
		}
		s.loaded[f] = lf
	}
	for f, lf := range s.loaded {
		if !seen[f] {
			c.Remove = append(c.Remove, lf.ids...)
			lf.file.Close(ctx)
			delete(s.loaded, f)
		}
	}
	return c, errs
}

// start fetches (the first time) and verifies the engine.
func (s *Source) start(ctx context.Context) error {
	engine, err := LoadEngine(ctx, filepath.Join(s.opts.CacheDir, "engines"))
	if err != nil {
		return err
	}
	s.rt = NewRuntime(engine, CompiledDir(s.cacheDir))
	return nil
}

func (s *Source) load(ctx context.Context, file string) ([]*Tool, error) {
	if s.rt == nil {
		return nil, ErrEngine
	}
	pool := 1
	if !s.opts.Warm {
		pool = -1 // a one-shot host makes one call: an instance started for the next would be wasted
	}
	f, err := Load(ctx, file, LoadOptions{Runtime: s.rt, CacheDir: s.cacheDir, PoolSize: pool, HostFuncs: s.opts.HostFuncs})
	if err != nil {
		return nil, err
	}
	return f.Tools(s.log), nil
}

// Close unloads every file and closes the engine runtime.
func (s *Source) Close(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for f, lf := range s.loaded {
		lf.file.Close(ctx)
		delete(s.loaded, f)
	}
	if s.rt != nil {
		return s.rt.Close(ctx)
	}
	return nil
}

var (
	_ source.Source  = (*Source)(nil)
	_ source.Watcher = (*Source)(nil)
)
