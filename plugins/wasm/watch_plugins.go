package wasm

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// maxPluginFiles bounds how many files a look at the plugin folders
// records: a plugin folder is a handful of manifests and modules, and a
// folder holding far more (a mistaken copy of a source tree) must not make
// every poll walk it all.
const maxPluginFiles = 10_000

// PluginFolders is what the plugin folders of some config directories
// held at one moment (each file's size and modification time): the state a
// host's loaded plugins reflect, which WatchPlugins compares against.
type PluginFolders struct{ files map[string]fileInfo }

// LookAtPluginFolders records the plugin folders of dirs now. A host calls
// it before it loads the folders' plugins, and gives the result to
// WatchPlugins: a change made while it loaded them is then seen.
func LookAtPluginFolders(dirs []string) PluginFolders {
	return PluginFolders{files: pluginSnapshot(dirs)}
}

// WatchPlugins tells a long-running host when the plugin folders (plugin/,
// plugins/) of the config directories dirs change from since: a plugin
// folder or bare module added, removed or replaced, a manifest or module
// edited. fn runs after the change has settled, on Watch's schedule
// (file-system events, polling every EngineOptions.PollInterval as a
// fallback), and at once when the folders already differ from since; the
// host then loads the plugins again (DiscoverBundles, LoadPlugin), swaps
// their tools and hooks into the registry and unloads the old ones
// (UnloadPlugin). It returns when ctx is done or the Engine is closed.
func (h *Engine) WatchPlugins(ctx context.Context, dirs []string, since PluginFolders, fn func()) {
	ctx, done, err := h.begin(ctx)
	if err != nil {
		return
	}
	defer done()
	interval := h.pollInterval
	if interval <= 0 {
		interval = DefaultPollInterval
	}
	events := newFolderEvents(h, dirs, pluginFolders)
	defer events.close()
	last := since.files
	if last == nil {
		last = map[string]fileInfo{}
	}
	poll := time.NewTicker(interval)
	defer poll.Stop()
	settle := time.NewTimer(time.Hour)
	settle.Stop()
	defer settle.Stop()
	look := func() {
		now := pluginSnapshot(dirs)
		if equalSnapshots(last, now) {
			return
		}
		last = now
		if ctx.Err() == nil {
			fn()
		}
	}
	// A first look now that the folders are watched: a change made while
	// the host loaded the plugins, or before this goroutine ran, raised no
	// event here.
	look()
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

// pluginFolders are the folders whose events matter for the plugins of a
// config directory: plugin/ and plugins/, and each plugin's own folder in
// them (file-system events are not recursive).
func pluginFolders(configDir string) []string {
	var out []string
	for _, pd := range PluginDirs(configDir) {
		out = append(out, pd)
		entries, err := os.ReadDir(pd)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if e.IsDir() {
				out = append(out, filepath.Join(pd, e.Name()))
			}
		}
	}
	return out
}

// pluginSnapshot records the size and modification time of every file
// under the plugin folders of dirs, up to maxPluginFiles.
func pluginSnapshot(dirs []string) map[string]fileInfo {
	out := map[string]fileInfo{}
	for _, d := range dirs {
		for _, pd := range PluginDirs(d) {
			filepath.WalkDir(pd, func(p string, de fs.DirEntry, err error) error {
				if err != nil || de.IsDir() {
					return nil // a folder that vanished mid-walk is seen next time
				}
				if len(out) >= maxPluginFiles {
					return fs.SkipAll
				}
				if info, err := de.Info(); err == nil {
					out[p] = fileInfo{size: info.Size(), mtime: info.ModTime().UnixNano()}
				}
				return nil
			})
		}
	}
	return out
}

// UnloadPlugin retires a plugin LoadPlugin returned, once the host has
// taken its tools and hooks out of the registry: its hooks stop receiving
// events, and its modules close once the calls in flight on them finish.
func (h *Engine) UnloadPlugin(p *Plugin) {
	if p == nil {
		return
	}
	h.mu.Lock()
	h.pluginMods = slices.DeleteFunc(h.pluginMods, func(m *module) bool { return slices.Contains(p.mods, m) })
	if p.Hooks != nil {
		h.pluginHooks = slices.DeleteFunc(h.pluginHooks, func(hk *Hooks) bool { return hk == p.Hooks })
	}
	h.mu.Unlock()
	if p.Hooks != nil {
		p.Hooks.close()
	}
	for _, m := range p.mods {
		m.close(context.Background())
	}
}
