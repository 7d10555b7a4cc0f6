package host

import (
	"context"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/toolhost/toolhost/plugins"
	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/config"
)

// addWasm discovers wasm tools (tool/*.wasm, tools/*.wasm) in the config
// directories and adds them as runtime.SourceWasm. Modules that fail to
// load are recorded in LoadErrors and skipped.
func (h *Host) addWasm(ctx context.Context, opts Options) error {
	wh := plugins.NewEngine(plugins.EngineOptions{
		CacheDir:  filepath.Join(opts.CacheDir, "wasm"),
		Config:    h.Config,
		Logger:    opts.Logger,
		HostFuncs: h.funcs,
	})
	h.wasm = wh
	h.life.onClose("wasm modules", wh.Close)
	tools, errs := wh.Discover(ctx, h.toolDirs())
	for _, e := range errs {
		h.LoadErrors = append(h.LoadErrors, runtime.LoadError{Source: runtime.SourceWasm, File: e.File, Reason: e.Reason})
	}
	h.Registry.Add(runtime.SourceWasm, tools...)
	h.wasmTools = tools
	if opts.Watch {
		// A long-running front end answers at once from the listing and
		// compiles modules while it waits for the first call.
		wh.CompileInBackground(h.Worktree)
	}
	return nil
}

// watch keeps the registry's wasm tools and folder plugins in step with
// the config directories' tool/, tools/, plugin/ and plugins/ folders until
// Close: added, replaced and removed modules and plugins take effect
// without a restart, and calls in flight on a replaced module finish on
// the old one.
//
// pluginsAt is what the plugin folders held when the host loaded them.
func (h *Host) watch(directory string, log *slog.Logger, pluginsAt plugins.PluginFolders) {
	if h.js != nil {
		h.life.goWatch(func(ctx context.Context) { h.js.watch(ctx, h.Registry, time.Second) })
	}
	if h.py != nil {
		h.life.goWatch(func(ctx context.Context) { h.py.watch(ctx, h.Registry, time.Second) })
	}
	if h.wasm == nil {
		return
	}
	dirs := h.watchedDirs(directory)
	h.life.goWatch(func(ctx context.Context) {
		h.wasm.Watch(ctx, dirs, func(added []runtime.Tool, removed []string) {
			h.Registry.Replace(runtime.SourceWasm, removed, h.admitChanged(log, added)...)
		})
	})
	h.life.goWatch(func(ctx context.Context) {
		h.wasm.WatchPlugins(ctx, dirs, pluginsAt, func() {
			if h.admitChanged(log, []runtime.Tool{}) != nil {
				h.reloadFolderPlugins(ctx, log, dirs)
			}
		})
	})
}

// watchDirs is dirs with the project's config directories that do not
// exist yet — .toolhost at the worktree root and in the working directory,
// which config.Dirs lists only when present — put where they would rank,
// so a user may create .toolhost/tool/ while a host runs.
func watchDirs(dirs []string, worktree, directory string) []string {
	isProject := func(d string) bool {
		return filepath.Base(d) == config.ProjectDirName && (d == filepath.Join(worktree, config.ProjectDirName) || strings.HasPrefix(d, worktree+string(filepath.Separator)))
	}
	var project []string
	first := -1
	for i, d := range dirs {
		if isProject(d) {
			project = append(project, d)
			if first < 0 {
				first = i
			}
		}
	}
	for _, d := range []string{filepath.Join(worktree, config.ProjectDirName), filepath.Join(directory, config.ProjectDirName)} {
		if !slices.Contains(project, d) {
			project = append(project, d)
		}
	}
	// Shallower directories rank lower, as config.Dirs orders them.
	slices.SortStableFunc(project, func(a, b string) int {
		return strings.Count(a, string(filepath.Separator)) - strings.Count(b, string(filepath.Separator))
	})
	if first < 0 {
		first = min(1, len(dirs)) // after the global directory
	}
	var out []string
	out = append(out, slices.DeleteFunc(slices.Clone(dirs[:first]), isProject)...)
	out = append(out, project...)
	out = append(out, slices.DeleteFunc(slices.Clone(dirs[first:]), isProject)...)
	return out
}

// WasmPools returns the instance pools of the wasm modules (tools and
// plugins) compiled so far: per module, instances idle and in use. Nil
// without wasm (Options.NoWasm).
func (h *Host) WasmPools() []plugins.PoolSize {
	if h.wasm == nil {
		return nil
	}
	return h.wasm.Pools()
}
