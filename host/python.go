package host

import (
	"context"
	"log/slog"
	"path/filepath"
	"sync"
	"time"

	"github.com/toolhost/toolhost/internal/pytool"
	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/config"
)

// pyTools are the host's Python tool files (tool/*.py in the config
// directories): found by pytool.Files, run on one engine runtime, and
// reloaded by a watching host when a file is added, edited or removed.
type pyTools struct {
	dirs     []string
	cacheDir string // <cache>/py
	cfg      *config.Config
	worktree string
	warm     bool // start each tool's instances ahead of its first call
	log      *slog.Logger
	admit    func([]string) []string // drops files of an untrusted project (trust.go)

	mu     sync.Mutex
	rt     *pytool.Runtime // nil until a file is found
	loaded map[string]*pyFile
}

type pyFile struct {
	stamp string
	file  *pytool.File
	ids   []string
}

// addPython loads the Python tool files and adds their tools as
// runtime.SourcePython. The engine is fetched with npm the first time a
// file is found; when that fails, every Python file gets the same load
// error and everything else still loads. Listing reads each file's tools
// from the schema cache, so it starts Python only for a new or changed
// file; a watching host (a server) also starts instances ahead of calls.
func (h *Host) addPython(ctx context.Context, opts Options) {
	// An untrusted project's folders are not read (trust.go).
	dirs := h.toolDirs()
	if opts.Watch {
		// As the wasm watcher does: a project .toolhost made after start counts.
		dirs = h.watchedDirs(opts.Directory)
	}
	h.py = &pyTools{dirs: dirs, cacheDir: filepath.Join(opts.CacheDir, "py"), cfg: h.Config,
		worktree: h.Worktree, warm: opts.Watch, log: opts.Logger, loaded: map[string]*pyFile{}, admit: h.admitFiles}
	h.life.onClose("Python tools", h.py.close)
	h.LoadErrors = append(h.LoadErrors, h.py.sync(ctx, h.Registry)...)
}

// sync loads new and changed files and drops removed ones, updating reg.
func (p *pyTools) sync(ctx context.Context, reg *runtime.Registry) []runtime.LoadError {
	p.mu.Lock()
	defer p.mu.Unlock()
	var remove []string
	var add []runtime.Tool
	var errs []runtime.LoadError
	files := pytool.Files(p.dirs)
	if p.admit != nil {
		files = p.admit(files)
	}
	var engineErr error
	if len(files) > 0 && p.rt == nil {
		engineErr = p.start(ctx)
	}
	seen := map[string]bool{}
	for _, f := range files {
		seen[f] = true
		stamp := stampOf(f)
		if lf, ok := p.loaded[f]; ok {
			if lf.stamp == stamp {
				continue
			}
			remove = append(remove, lf.ids...)
			lf.file.Close(ctx)
			delete(p.loaded, f)
		}
		tools, err := p.load(ctx, f)
		if engineErr != nil {
			tools, err = nil, engineErr
		}
		if err != nil {
			errs = append(errs, runtime.LoadError{Source: runtime.SourcePython, File: f, Reason: err.Error()})
			continue
		}
		lf := &pyFile{stamp: stamp, file: tools[0].File()}
		for _, t := range tools {
			add = append(add, t)
			lf.ids = append(lf.ids, t.ID())
			if p.warm {
				t.Warm(p.cfg, p.worktree)
			}
		}
		p.loaded[f] = lf
	}
	for f, lf := range p.loaded {
		if !seen[f] {
			remove = append(remove, lf.ids...)
			lf.file.Close(ctx)
			delete(p.loaded, f)
		}
	}
	if len(remove) > 0 || len(add) > 0 {
		reg.Replace(runtime.SourcePython, remove, add...)
	}
	return errs
}

// start fetches (the first time) and verifies the engine.
func (p *pyTools) start(ctx context.Context) error {
	engine, err := pytool.LoadEngine(ctx, filepath.Join(filepath.Dir(p.cacheDir), "engines"))
	if err != nil {
		return err
	}
	p.rt = pytool.NewRuntime(engine, pytool.CompiledDir(p.cacheDir))
	return nil
}

func (p *pyTools) load(ctx context.Context, file string) ([]*pytool.Tool, error) {
	if p.rt == nil {
		return nil, pytool.ErrEngine
	}
	pool := 1
	if !p.warm {
		pool = -1 // a one-shot host makes one call: an instance started for the next would be wasted
	}
	f, err := pytool.Load(ctx, file, pytool.LoadOptions{Runtime: p.rt, CacheDir: p.cacheDir, PoolSize: pool})
	if err != nil {
		return nil, err
	}
	return f.Tools(p.log), nil
}

// watch re-syncs every interval until ctx ends.
func (p *pyTools) watch(ctx context.Context, reg *runtime.Registry, interval time.Duration) {
	every(ctx, interval, func() { // as jsTools.watch
		for _, e := range p.sync(ctx, reg) {
			p.log.Warn("Python tool not loaded", "file", e.File, "err", e.Reason)
		}
	})
}

func (p *pyTools) close(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	for f, lf := range p.loaded {
		lf.file.Close(ctx)
		delete(p.loaded, f)
	}
	if p.rt != nil {
		return p.rt.Close(ctx)
	}
	return nil
}
