package host

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/toolhost/toolhost/internal/jstool"
	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/config"
)

// jsTools are the host's TypeScript and JavaScript tool files: found by
// jstool.Files, loaded on one shared engine runtime, and reloaded by a
// watching host when a file is added, edited or removed.
type jsTools struct {
	where    jstool.Where
	cacheDir string
	memMax   int
	log      *slog.Logger
	admit    func([]string) []string // drops files of an untrusted project (trust.go)

	mu     sync.Mutex
	rt     *jstool.Runtime // nil until a file is found
	loaded map[string]*jsFile
}

type jsFile struct {
	stamp string // size and modification time when loaded
	file  *jstool.File
	tools []*jstool.Tool
}

func stampOf(path string) string {
	st, err := os.Stat(path)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%s/%d", st.ModTime(), st.Size())
}

// addJS loads the TypeScript and JavaScript tool files (tool/*.ts and
// tool/*.js in the config directories, and OpenCode's tool folders unless
// "compat": {"opencode": false}) and adds their exports as
// runtime.SourceJS. The engine is fetched with npm the first time a file
// is found; when that fails, every JS file gets the same load error and
// everything else still loads.
func (h *Host) addJS(ctx context.Context, opts Options) {
	memMax := config.DefaultWasmMemoryMB
	for _, wc := range h.Config.Wasm {
		memMax = max(memMax, wc.MemoryMaxMB)
	}
	h.js = &jsTools{
		where:    JSWhere(h.Config, h.Dirs, h.Directory, h.Worktree, opts.Env),
		cacheDir: opts.CacheDir, memMax: memMax, log: opts.Logger, loaded: map[string]*jsFile{}, admit: h.admitFiles,
	}
	h.life.onClose("JS tools", h.js.close)
	h.LoadErrors = append(h.LoadErrors, h.js.sync(ctx, h.Registry)...)
}

// tools lists the tools of every loaded file, shadowed ones included.
func (j *jsTools) tools() []runtime.Tool {
	j.mu.Lock()
	defer j.mu.Unlock()
	var out []runtime.Tool
	for _, lf := range j.loaded {
		for _, t := range lf.tools {
			out = append(out, t)
		}
	}
	return out
}

// sync loads new and changed files and drops removed ones, updating reg.
func (j *jsTools) sync(ctx context.Context, reg *runtime.Registry) []runtime.LoadError {
	j.mu.Lock()
	defer j.mu.Unlock()
	files := jstool.Files(j.where)
	if j.admit != nil {
		files = j.admit(files)
	}
	want := map[string]string{}
	for _, f := range files {
		want[f] = stampOf(f)
	}
	affected := map[string]bool{} // ids whose tool may change
	var stale []*jstool.File
	for p, lf := range j.loaded {
		if s, ok := want[p]; !ok || s != lf.stamp {
			for _, t := range lf.tools {
				affected[t.ID()] = true
			}
			stale = append(stale, lf.file)
			delete(j.loaded, p)
		}
	}
	var todo []string
	for _, f := range files {
		if _, ok := j.loaded[f]; !ok {
			todo = append(todo, f)
		}
	}
	var errs []runtime.LoadError
	if len(todo) > 0 {
		var err error
		if j.rt == nil {
			err = j.start(ctx)
		}
		if err != nil {
			for _, f := range todo {
				errs = append(errs, runtime.LoadError{Source: runtime.SourceJS, File: f, Reason: err.Error()})
			}
		} else {
			var added []string
			added, errs = j.load(ctx, todo, want)
			for _, id := range added {
				affected[id] = true
			}
		}
	}
	if len(affected) > 0 {
		remove, add := j.winners(files, affected)
		reg.Replace(runtime.SourceJS, remove, add...)
	}
	// Calls in flight on a replaced file finish on it (File.Close closes
	// only idle instances; the runtime is shared).
	for _, f := range stale {
		f.Close(ctx)
	}
	return errs
}

func (j *jsTools) start(ctx context.Context) error {
	engine, err := jstool.LoadEngine(ctx, filepath.Join(j.cacheDir, "engines"))
	if err != nil {
		return err
	}
	j.rt, err = jstool.NewRuntime(ctx, engine, j.memMax, jstool.CompiledDir(filepath.Join(j.cacheDir, "js")))
	return err
}

// winners is, for each affected id, the tool of the last (highest
// precedence) loaded file in files that exports it: a project's jira.ts
// over the user's while both exist, the user's again once the project's
// is gone. Each tool carries its own file, so its grants and approvals
// are its own whichever file holds the id (config.Config.WasmFor).
func (j *jsTools) winners(files []string, affected map[string]bool) (remove []string, add []runtime.Tool) {
	win := map[string]runtime.Tool{}
	for _, f := range files {
		if lf, ok := j.loaded[f]; ok {
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
// bound the work), records them in j.loaded and returns the ids they
// export and their failures.
func (j *jsTools) load(ctx context.Context, files []string, stamps map[string]string) ([]string, []runtime.LoadError) {
	loaded := make([]*jstool.File, len(files))
	errs := make([]error, len(files))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	for i, f := range files {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			loaded[i], errs[i] = jstool.Load(ctx, f, jstool.LoadOptions{Runtime: j.rt, CacheDir: filepath.Join(j.cacheDir, "js"), Root: j.root(f)})
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
		lf := &jsFile{stamp: stamps[files[i]], file: f, tools: f.Tools(j.log)}
		for _, t := range lf.tools {
			ids = append(ids, t.ID())
		}
		j.loaded[files[i]] = lf
	}
	return ids, lerrs
}

// root is what a file may import from besides node_modules: the project
// for a file inside it, else the folder holding its tool folder.
func (j *jsTools) root(file string) string {
	if wt := j.where.Worktree; wt != "" {
		if rel, err := filepath.Rel(wt, file); err == nil && !strings.HasPrefix(rel, "..") {
			return wt
		}
	}
	return filepath.Dir(filepath.Dir(file))
}

// watch re-syncs every interval until ctx ends.
func (j *jsTools) watch(ctx context.Context, reg *runtime.Registry, interval time.Duration) {
	// At start the host records sync's errors in LoadErrors, which the front
	// end reports once; a rescan has only the log to tell.
	every(ctx, interval, func() {
		for _, e := range j.sync(ctx, reg) {
			j.log.Warn("JS tool not loaded", "file", e.File, "err", e.Reason)
		}
	})
}

// every runs fn every interval until ctx ends.
func every(ctx context.Context, interval time.Duration, fn func()) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			fn()
		}
	}
}

func (j *jsTools) close(ctx context.Context) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	for p, lf := range j.loaded {
		lf.file.Close(ctx)
		delete(j.loaded, p)
	}
	if j.rt != nil {
		return j.rt.Close(ctx)
	}
	return nil
}
