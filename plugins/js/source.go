package js

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/toolhost/toolhost/hostfns"
	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/config"
	"github.com/toolhost/toolhost/runtime/source"
)

// SourceOptions configure a Source.
type SourceOptions struct {
	Where Where
	// CacheDir is the host's cache directory: the engine is kept in
	// CacheDir/engines, bundles and snapshots in CacheDir/js.
	CacheDir string
	// MemoryMaxMB bounds an instance's memory.
	MemoryMaxMB int
	Logger      *slog.Logger
	// Trust drops an untrusted project's files (source.Trust.AdmitFiles).
	Trust source.Trust
	// HostFuncs are the embedder's host functions the tools may call
	// (context.callHost); nil: none.
	HostFuncs *hostfns.Set
}

// OptionsFor is what a host gives its JS source: the config directories
// and OpenCode's folders (WhereFor), the largest memory limit any "wasm"
// entry grants (an instance is shared by the file's tools), and the
// embedder's host functions funcs (nil: none).
func OptionsFor(env source.Env, funcs *hostfns.Set) SourceOptions {
	memMax := config.DefaultWasmMemoryMB
	for _, wc := range env.Config.Wasm {
		memMax = max(memMax, wc.MemoryMaxMB)
	}
	return SourceOptions{
		Where:    WhereFor(env.Config, env.Dirs, env.Directory, env.Worktree, env.Getenv),
		CacheDir: env.CacheDir, MemoryMaxMB: memMax, Logger: env.Logger, Trust: env.Trust, HostFuncs: funcs,
	}
}

// WhereFor is where a host looks for JS tool files: the config
// directories' tool folders and, unless "compat": {"opencode": false},
// OpenCode's ($XDG_CONFIG_HOME/opencode, default ~/.config/opencode, and
// the project's .opencode folders).
func WhereFor(cfg *config.Config, dirs []string, directory, worktree string, env func(string) string) Where {
	return Where{ConfigDirs: dirs, OpenCode: cfg.Compat.OpenCodeTools(),
		Directory: directory, Worktree: worktree, ConfigHome: ConfigHome(env)}
}

// ConfigHome is $XDG_CONFIG_HOME, default ~/.config.
func ConfigHome(env func(string) string) string {
	if h := env(config.EnvXDGConfigHome); h != "" {
		return h
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".config")
	}
	return ""
}

// Source is the TypeScript and JavaScript tool files (tool/*.ts and
// tool/*.js, Files) as a tool source (runtime.SourceJS), loaded on one
// shared engine runtime. The engine is fetched with npm the first time a
// file is found; when that fails, every JS file gets the same load error
// and everything else still loads. It is a source.Watcher: a watching
// host reloads a file added, edited or removed.
type Source struct {
	opts SourceOptions
	log  *slog.Logger

	mu     sync.Mutex
	rt     *Runtime // nil until a file is found
	loaded map[string]*loadedFile
}

type loadedFile struct {
	stamp string // size and modification time when loaded
	file  *File
	tools []*Tool
}

// NewSource returns the JS tool source of opts.
func NewSource(opts SourceOptions) *Source {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Source{opts: opts, log: log, loaded: map[string]*loadedFile{}}
}

// Kind is runtime.SourceJS.
func (s *Source) Kind() runtime.Source { return runtime.SourceJS }

// Load loads every file. Its tools come lowest precedence file first, so
// a project's jira.ts wins over the user's; every tool carries its own
// file, so its grants and approvals are its own (config.Config.WasmFor).
func (s *Source) Load(ctx context.Context) (source.Loaded, error) {
	files, errs, _, _ := s.sync(ctx)
	var out source.Loaded
	out.Errors = errs
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, f := range files {
		if lf, ok := s.loaded[f]; ok {
			for _, t := range lf.tools {
				out.Tools = append(out.Tools, t)
			}
		}
	}
	return out, nil
}

// Folders are the tool folders Files reads.
func (s *Source) Folders() []string { return Folders(s.opts.Where) }

// Look loads new and changed files and drops removed ones. Calls in
// flight on a replaced file finish on it.
func (s *Source) Look(ctx context.Context, apply func(source.Change)) {
	_, errs, c, stale := s.sync(ctx)
	// Load's errors reach LoadErrors, which the front end reports once; a
	// rescan has only the log to tell.
	for _, e := range errs {
		s.log.Warn("JS tool not loaded", "file", e.File, "err", e.Reason)
	}
	apply(c)
	// File.Close closes only idle instances; the runtime is shared.
	for _, f := range stale {
		f.Close(ctx)
	}
}

// sync brings s.loaded in step with the folders: it returns the files
// found, the load errors, the registry change and the files replaced.
func (s *Source) sync(ctx context.Context) ([]string, []runtime.LoadError, source.Change, []*File) {
	s.mu.Lock()
	defer s.mu.Unlock()
	files := source.AdmitFiles(s.opts.Trust, Files(s.opts.Where))
	want := map[string]string{}
	for _, f := range files {
		want[f] = source.Stamp(f)
	}
	affected := map[string]bool{} // ids whose tool may change
	var stale []*File
	for p, lf := range s.loaded {
		if st, ok := want[p]; !ok || st != lf.stamp {
			for _, t := range lf.tools {
				affected[t.ID()] = true
			}
			stale = append(stale, lf.file)
			delete(s.loaded, p)
		}
	}
	var todo []string
	for _, f := range files {
		if _, ok := s.loaded[f]; !ok {
			todo = append(todo, f)
		}
	}
	var errs []runtime.LoadError
	if len(todo) > 0 {
		var err error
		if s.rt == nil {
			err = s.start(ctx)
		}
		if err != nil {
			for _, f := range todo {
				errs = append(errs, runtime.LoadError{Source: runtime.SourceJS, File: f, Reason: err.Error()})
			}
		} else {
			var added []string
			added, errs = s.load(ctx, todo, want)
			for _, id := range added {
				affected[id] = true
			}
		}
	}
	var c source.Change
	if len(affected) > 0 {
		c.Remove, c.Add = s.winners(files, affected)
	}
	return files, errs, c, stale
}

func (s *Source) start(ctx context.Context) error {
	engine, err := LoadEngine(ctx, filepath.Join(s.opts.CacheDir, "engines"))
	if err != nil {
		return err
	}
	s.rt, err = NewRuntime(ctx, engine, s.opts.MemoryMaxMB, CompiledDir(filepath.Join(s.opts.CacheDir, "js")))
	return err
}

// winners is, for each affected id, the tool of the last (highest
// precedence) loaded file in files that exports it: a project's jira.ts
// over the user's while both exist, the user's again once the project's
// is gone.
func (s *Source) winners(files []string, affected map[string]bool) (remove []string, add []runtime.Tool) {
	win := map[string]runtime.Tool{}
	for _, f := range files {
		if lf, ok := s.loaded[f]; ok {
			for _, t := range lf.tools {
				if affected[t.ID()] {
					win[t.ID()] = t
				}
			}
		}
	}
	for id := range affected {
		remove = append(remove, id)
		if t, ok := win[id]; ok {
			add = append(add, t)
		}
	}
	return remove, add
}

// load loads files two at a time (the machine's cores, not its files,
// bound the work), records them in s.loaded and returns the ids they
// export and their failures.
func (s *Source) load(ctx context.Context, files []string, stamps map[string]string) ([]string, []runtime.LoadError) {
	loaded := make([]*File, len(files))
	errs := make([]error, len(files))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	for i, f := range files {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			loaded[i], errs[i] = Load(ctx, f, LoadOptions{Runtime: s.rt, CacheDir: filepath.Join(s.opts.CacheDir, "js"), Root: s.root(f), HostFuncs: s.opts.HostFuncs})
		}()
	}
	wg.Wait()
	var ids []string
	var lerrs []runtime.LoadError
	for i, f := range loaded {
		if errs[i] != nil {
			lerrs = append(lerrs, runtime.LoadError{Source: runtime.SourceJS, File: files[i], Reason: errs[i].Error()})
			continue
		}
		lf := &loadedFile{stamp: stamps[files[i]], file: f, tools: f.Tools(s.log)}
		for _, t := range lf.tools {
			ids = append(ids, t.ID())
		}
		s.loaded[files[i]] = lf
	}
	return ids, lerrs
}

// root is what a file may import from besides node_modules: the project
// for a file inside it, else the folder holding its tool folder.
func (s *Source) root(file string) string {
	if wt := s.opts.Where.Worktree; wt != "" {
		if rel, err := filepath.Rel(wt, file); err == nil && !strings.HasPrefix(rel, "..") {
			return wt
		}
	}
	return filepath.Dir(filepath.Dir(file))
}

// Close unloads every file and closes the engine runtime.
func (s *Source) Close(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for p, lf := range s.loaded {
		lf.file.Close(ctx)
		delete(s.loaded, p)
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
