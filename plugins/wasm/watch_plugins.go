package wasm

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// maxPluginFiles bounds how many files a look at the plugin folders
// records: a plugin folder is a handful of manifests and modules, and a
// folder holding far more (a mistaken copy of a source tree) must not make
// every poll walk it all.
const maxPluginFiles = 10_000

// PluginWatch tells a long-running host when the plugin folders
// (plugin/, plugins/) of some config directories change: a plugin folder
// or bare module added, removed or replaced, a manifest or module edited.
// The host then loads the plugins again (DiscoverBundles, LoadPlugin),
// swaps their tools and hooks into the registry and unloads the old ones
// (UnloadPlugin).
type PluginWatch struct {
	dirs []string
	last map[string]fileInfo
}

// WatchPluginFolders records the plugin folders of dirs now. A host calls
// it before it loads the folders' plugins: a change made while it loads
// them is then seen by the first Changed.
func WatchPluginFolders(dirs []string) *PluginWatch {
	return &PluginWatch{dirs: dirs, last: pluginSnapshot(dirs)}
}

// Folders are the folders whose file-system events matter: plugin/ and
// plugins/ of each directory, and each plugin's own folder in them
// (file-system events are not recursive).
func (w *PluginWatch) Folders() []string {
	var out []string
	for _, d := range w.dirs {
		out = append(out, pluginFolders(d)...)
	}
	return out
}

// Changed reports whether the folders differ from the last look, and
// records what they hold now.
func (w *PluginWatch) Changed() bool {
	now := pluginSnapshot(w.dirs)
	if equalSnapshots(w.last, now) {
		return false
	}
	w.last = now
	return true
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
