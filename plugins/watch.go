package plugins

import (
	"context"
	"os"
	"path/filepath"
	"time"

	"github.com/toolhost/toolhost/runtime"
)

// DefaultPollInterval is how often Watch looks at the tool folders.
const DefaultPollInterval = time.Second

// Watch keeps the tools of the config directories dirs current for a
// long-running host (the MCP server, the agent loop, an embedding
// program): it polls the tool folders every HostOptions.PollInterval, and
// when a .wasm file is added, replaced or removed, calls fn with the tools
// to add (new, or new versions of replaced modules — Registry.Add replaces
// by id) and the ids to remove. It returns when ctx is done.
//
// Watch starts from the modules Discover loaded from dirs: call Discover
// first and register its tools; anything changed since is reported at the
// first poll. A replaced module is
// unloaded after fn returns; calls in flight on it finish on the old
// version, because its compiled module closes only when the last of them
// gives back its instance. Load errors of changed modules are logged.
//
// Polling (size and modification time) rather than inotify-style events
// keeps toolhost free of a file-watching dependency and works on network
// and container file systems; a tool folder holds a handful of files.
func (h *Host) Watch(ctx context.Context, dirs []string, fn func(added []runtime.Tool, removed []string)) {
	interval := h.pollInterval
	if interval <= 0 {
		interval = DefaultPollInterval
	}
	last, current := h.loaded(dirs)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		now := snapshot(dirs)
		if equalSnapshots(last, now) {
			continue
		}
		last = now
		h.mu.Lock()
		before := make(map[string]*module, len(h.modules))
		for p, m := range h.modules {
			before[p] = m
		}
		h.mu.Unlock()

		tools, errs := h.Discover(ctx, dirs)
		_ = errs // Discover logged them
		next := map[string]bool{}
		var added []runtime.Tool
		for _, tl := range tools {
			next[tl.ID()] = true
			wt, ok := tl.(*wasmTool)
			if !ok || before[wt.module.path] != wt.module || !current[tl.ID()] {
				added = append(added, tl)
			}
		}
		var removed []string
		for id := range current {
			if !next[id] {
				removed = append(removed, id)
			}
		}
		current = next
		if len(added) > 0 || len(removed) > 0 {
			fn(added, removed)
		}
		// Unload modules that were replaced or whose file is gone.
		h.mu.Lock()
		var retired []*module
		for p, m := range before {
			if now, ok := h.modules[p]; ok && now == m {
				if _, exists := last[p]; exists {
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
	}
}

// loaded returns what Watch starts from: the files of the modules loaded
// from dirs as they were when loaded, and their tool ids. A file changed
// between Discover and Watch is therefore noticed at the first poll.
func (h *Host) loaded(dirs []string) (map[string]fileInfo, map[string]bool) {
	files := map[string]fileInfo{}
	ids := map[string]bool{}
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, d := range dirs {
		for _, td := range ToolDirs(d) {
			for p, m := range h.modules {
				if filepath.Dir(p) != td {
					continue
				}
				files[p] = m.info
				for _, tm := range m.meta.Tools {
					ids[m.toolID(tm.Export)] = true
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
