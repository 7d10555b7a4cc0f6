package plugins

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/toolhost/toolhost/runtime"
)

// DefaultPollInterval is how often Watch looks at the tool folders when no
// file-system event arrives.
const DefaultPollInterval = time.Second

// settleDelay is how long Watch waits after a file-system event for more
// to follow before it looks: a module being copied in produces a burst of
// writes, and loading it half-written would report an error and, for a
// replaced module, withdraw its tools for a moment.
const settleDelay = 100 * time.Millisecond

// Watch keeps the tools of the config directories dirs current for a
// long-running host (the MCP server, the agent loop, an embedding
// program): when a .wasm file of a tool folder (tool/, tools/) is added,
// replaced or removed, it calls fn with the tools to add (new, or new
// versions of replaced modules — Registry.Add replaces by id) and the ids
// to remove. It returns when ctx is done or the Engine is closed; Close waits
// for it.
//
// Changes are noticed through file-system events (fsnotify: inotify,
// kqueue, ReadDirectoryChangesW), which also watch the config directory
// and its parent so a tool folder created after start is picked up. Every
// EngineOptions.PollInterval (default 1 s) the folders are also compared by
// size and modification time, which covers file systems that send no
// events (network and some container mounts) and a platform without
// fsnotify: a change is seen within the interval either way.
//
// Watch starts from the modules Discover loaded from dirs: call Discover
// first and register its tools; anything changed since is reported at the
// first look, made as soon as the folders are watched. A replaced module is unloaded after fn returns; calls in
// flight on it finish on the old version, because its compiled module
// closes only when the last of them gives back its instance. Load errors of
// changed modules are logged.
func (h *Engine) Watch(ctx context.Context, dirs []string, fn func(added []runtime.Tool, removed []string)) {
	ctx, done, err := h.begin(ctx)
	if err != nil {
		return
	}
	defer done()
	interval := h.pollInterval
	if interval <= 0 {
		interval = DefaultPollInterval
	}
	events := newFolderEvents(h, dirs, ToolDirs)
	defer events.close()

	last, current := h.loaded(dirs)
	look := func() {
		now := snapshot(dirs)
		if equalSnapshots(last, now) {
			return
		}
		last = now
		current = h.rescan(ctx, dirs, last, current, fn)
	}
	// A first look now that the folders are watched: a change made
	// between Discover and here raised no event.
	look()
	poll := time.NewTicker(interval)
	defer poll.Stop()
	settle := time.NewTimer(time.Hour)
	settle.Stop()
	defer settle.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-events.c:
			settle.Reset(settleDelay)
		case <-settle.C:
			events.rewatch()
			look()
		case <-poll.C:
			look()
		}
	}
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

// folderEvents turns file-system events under the folders of dirs (the
// tool folders, or the plugin folders) into wake-ups. Without fsnotify (an
// unsupported platform, no inotify watches left) c never fires and the
// watcher polls alone.
type folderEvents struct {
	h       *Engine
	dirs    []string
	folders func(configDir string) []string
	w       *fsnotify.Watcher
	watched map[string]bool
	c       chan struct{}
	stop    chan struct{}
	done    chan struct{}
}

func newFolderEvents(h *Engine, dirs []string, folders func(string) []string) *folderEvents {
	e := &folderEvents{h: h, dirs: dirs, folders: folders, watched: map[string]bool{}, c: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	if h.noEvents {
		close(e.done)
		return e
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		h.log.Info("file-system events unavailable; polling the tool folders", "err", err)
		close(e.done)
		return e
	}
	e.w = w
	e.rewatch()
	go e.forward()
	return e
}

// rewatch watches, for every folder, the folder itself when it exists,
// else the nearest existing of its config directory and that directory's
// parent, so creating .toolhost/tool/ after start is an event too.
//
// It looks twice: a folder created between the first look's stat (not
// there yet) and the watch on its parent raised no event, and a module
// copied into it then would go unseen until the next poll. The second
// look, after every watch is in place, finds such a folder; one created
// after it is an event on the parent.
func (e *folderEvents) rewatch() {
	if e.w == nil {
		return
	}
	for range 2 {
		for _, d := range e.dirs {
			for _, td := range e.folders(d) {
				for _, p := range []string{td, d, filepath.Dir(d)} {
					if st, err := os.Stat(p); err != nil || !st.IsDir() {
						continue
					}
					if !e.watched[p] {
						if err := e.w.Add(p); err != nil {
							e.h.log.Debug("cannot watch folder; polling covers it", "dir", p, "err", err)
							break
						}
						e.watched[p] = true
					}
					break
				}
			}
		}
	}
}

// forward passes events on as wake-ups, coalesced.
func (e *folderEvents) forward() {
	defer close(e.done)
	for {
		select {
		case <-e.stop:
			return
		case _, ok := <-e.w.Events:
			if !ok {
				return
			}
			select {
			case e.c <- struct{}{}:
			default:
			}
		case err, ok := <-e.w.Errors:
			if !ok {
				return
			}
			e.h.log.Debug("file-system events", "err", err)
		}
	}
}

func (e *folderEvents) close() {
	if e.w == nil {
		return
	}
	close(e.stop)
	e.w.Close()
	<-e.done
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
