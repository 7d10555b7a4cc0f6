package wasm

import (
	"context"
	"os"
	"path/filepath"
	"slices"

	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/source"
)

// DefaultPollInterval is how often Watch looks at the tool folders when no
// file-system event arrives.
const DefaultPollInterval = source.DefaultInterval

// Watch keeps the tools of the config directories dirs current for a
// program that uses an Engine without a host: when a .wasm file of a tool
// folder (tool/, tools/) is added, replaced or removed, it calls fn with
// the tools to add (new, or new versions of replaced modules —
// Registry.Add replaces by id) and the ids to remove. It returns when ctx
// is done or the Engine is closed; Close waits for it. A host follows the
// same folders through ToolSource, driven by its one watcher loop
// (source.Follow), which says how changes are noticed: file-system
// events, and a look every EngineOptions.PollInterval (default 1 s).
//
// Watch starts from the modules Discover loaded from dirs: call Discover
// first and register its tools; anything changed since is reported at the
// first look, made as soon as the folders are watched. A replaced module
// is unloaded after fn returns; calls in flight on it finish on the old
// version, because its compiled module closes only when the last of them
// gives back its instance. Load errors of changed modules are logged.
func (h *Engine) Watch(ctx context.Context, dirs []string, fn func(added []runtime.Tool, removed []string)) {
	ctx, done, err := h.begin(ctx)
	if err != nil {
		return
	}
	defer done()
	w := h.watchTools(dirs)
	source.Follow(ctx, []source.Watcher{w}, h.followOptions(), func(_ int, c source.Change) { fn(c.Add, c.Remove) })
}

func (h *Engine) followOptions() source.FollowOptions {
	return source.FollowOptions{Interval: h.pollInterval, NoEvents: h.noEvents, Logger: h.log}
}

// toolWatch is a source.Watcher over the tool modules of dirs: each look
// reports what changed since Discover or the last look.
type toolWatch struct {
	h       *Engine
	dirs    []string
	last    map[string]fileInfo
	current map[string]*module
	force   bool // rescan at the next look even if no file changed
	// prior are the modules loaded when the rescan under way began: one
	// of them reported again was reused, not read now.
	prior map[*module]bool
}

// watchTools starts following the tool modules of dirs from what Discover
// loaded from them.
func (h *Engine) watchTools(dirs []string) *toolWatch {
	last, current := h.loaded(dirs)
	return &toolWatch{h: h, dirs: dirs, last: last, current: current}
}

func (w *toolWatch) Folders() []string {
	var out []string
	for _, d := range w.dirs {
		out = append(out, ToolDirs(d)...)
	}
	return out
}

func (w *toolWatch) Look(ctx context.Context, apply func(source.Change)) {
	ctx, done, err := w.h.begin(ctx)
	if err != nil {
		return
	}
	defer done()
	now := snapshot(w.dirs)
	if !w.force && equalSnapshots(w.last, now) {
		return
	}
	w.last, w.force = now, false
	w.prior = w.h.loadedSet()
	w.current = w.h.rescan(ctx, w.dirs, w.last, w.current, func(added []runtime.Tool, removed []string) {
		apply(source.Change{Add: added, Remove: removed})
	})
	w.prior = nil
}

// rescan discovers the modules of dirs again, reports what differs from
// current (the tool ids last reported) to fn, unloads modules replaced or
// removed, and returns the tool ids now current.
func (h *Engine) rescan(ctx context.Context, dirs []string, files map[string]fileInfo, current map[string]*module, fn func(added []runtime.Tool, removed []string)) map[string]*module {
	h.mu.Lock()
	before := make(map[string]*module, len(h.modules))
	for p, m := range h.modules {
		before[p] = m
	}
	h.mu.Unlock()

	tools, errs := h.Discover(ctx, dirs)
	for _, le := range errs {
		// At start the caller reports Discover's errors (the CLI prints
		// them once); a reload has nobody else to tell.
		h.log.Warn("wasm tool not loaded", "file", le.File, "reason", le.Reason)
	}
	if ctx.Err() != nil {
		return current // closing: report nothing half-done
	}
	next := map[string]*module{}
	var added []runtime.Tool
	for _, tl := range tools {
		wt, ok := tl.(*wasmTool)
		if ok {
			next[tl.ID()] = wt.module
		}
		// A tool is reported again when its module changed, and when the
		// id now goes to another module: a shadowing module removed gives
		// the id back to the one it hid, which carries its own grants.
		if !ok || before[wt.module.path] != wt.module || current[tl.ID()] != wt.module {
			added = append(added, tl)
		}
	}
	var removed []string
	for id := range current {
		if next[id] == nil {
			removed = append(removed, id)
		}
	}
	if len(added) > 0 || len(removed) > 0 {
		fn(added, removed)
	}
	// Unload modules that were replaced or whose file is gone.
	h.mu.Lock()
	var retired []*module
	for p, m := range before {
		if now, ok := h.modules[p]; ok && now == m {
			if _, exists := files[p]; exists {
				continue
			}
			delete(h.modules, p)
		}
		retired = append(retired, m)
	}
	h.mu.Unlock()
	for _, m := range retired {
		m.close(context.Background())
	}
	return next
}

// loadedSet is the modules loaded now.
func (h *Engine) loadedSet() map[*module]bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make(map[*module]bool, len(h.modules))
	for _, m := range h.modules {
		out[m] = true
	}
	return out
}

// unload forgets mods, loaded but not reported (held back until a person
// trusts them): the next Discover reads their files again. Each is closed
// unless it was replaced meanwhile.
func (h *Engine) unload(mods []*module) {
	for _, m := range mods {
		h.mu.Lock()
		if h.modules[m.path] == m {
			delete(h.modules, m.path)
		}
		h.mu.Unlock()
		m.close(context.Background())
	}
}

// loaded returns what Watch starts from: the files of the modules loaded
// from dirs as they were when loaded, and their tool ids. A file changed
// between Discover and Watch is therefore noticed at the first look.
func (h *Engine) loaded(dirs []string) (map[string]fileInfo, map[string]*module) {
	files := map[string]fileInfo{}
	ids := map[string]*module{} // id → the module it resolves to, as Discover decides
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, d := range dirs {
		for _, td := range ToolDirs(d) {
			var paths []string
			for p := range h.modules {
				if filepath.Dir(p) == td {
					paths = append(paths, p)
				}
			}
			slices.Sort(paths)
			for _, p := range paths {
				m := h.modules[p]
				files[p] = m.info
				for _, tm := range m.meta.Tools {
					ids[m.toolID(tm.Export)] = m
				}
			}
		}
	}
	return files, ids
}

// snapshot records the size and modification time of every module file.
func snapshot(dirs []string) map[string]fileInfo {
	out := map[string]fileInfo{}
	for _, f := range Files(dirs) {
		if st, err := os.Stat(f); err == nil {
			out[f] = fileInfo{size: st.Size(), mtime: st.ModTime().UnixNano()}
		}
	}
	return out
}

func equalSnapshots(a, b map[string]fileInfo) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
