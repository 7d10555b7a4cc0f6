package host

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/toolhost/toolhost/plugins"
	"github.com/toolhost/toolhost/plugins/pkg"
	"github.com/toolhost/toolhost/runtime"
)

// PluginManager returns the manager of the project's plugin packages:
// toolhost.lock at the project root, the cache under CacheDir/plugins,
// the config's trust policy and package size limit. Starting a host only reads through it; the
// CLI's `toolhost plugin` commands also add, update and remove.
func (h *Host) PluginManager(opts Options) *pkg.Manager {
	return &pkg.Manager{
		Cache:    pkg.Cache{Dir: filepath.Join(opts.CacheDir, "plugins")},
		LockPath: filepath.Join(h.Worktree, pkg.LockFile),
		Base:     h.Worktree,
		Trust:    h.Config.Trust,
		// Downloads stop at plugin_limits.max_archive_bytes.
		MaxArchiveBytes: h.Config.PluginLimits.ArchiveBytes(),
		// A module healed from its archive at start is logged: the user
		// learns that something changed their cache.
		Logger: opts.Logger,
	}
}

// addPlugins loads the plugin packages the config lists (from the cache,
// as toolhost.lock pins them; never from the network), then the plugins
// found in the config directories' plugin/ and plugins/ folders. Their
// tools join the registry as runtime.SourcePlugin and their hooks run on
// every call, in that order. A plugin that is not locked, not cached,
// altered or broken is recorded in LoadErrors and skipped.
func (h *Host) addPlugins(ctx context.Context, opts Options) {
	if h.wasm == nil {
		return
	}
	var srcs []plugins.Bundle
	if len(h.Config.Plugin) > 0 {
		mgr := h.PluginManager(opts)
		lock, err := pkg.ReadLock(mgr.LockPath)
		if err != nil {
			h.LoadErrors = append(h.LoadErrors, runtime.LoadError{Source: runtime.SourcePlugin, File: mgr.LockPath, Reason: err.Error()})
			lock = &pkg.Lock{}
		}
		for _, ref := range h.Config.Plugin {
			e, ok := lock.ByRef(ref)
			if !ok {
				h.LoadErrors = append(h.LoadErrors, runtime.LoadError{Source: runtime.SourcePlugin, File: ref,
					Reason: fmt.Sprintf("not in %s; run `toolhost plugin add %s` to fetch it and agree to its capabilities", pkg.LockFile, ref)})
				continue
			}
			src, err := mgr.Open(*e)
			if err != nil {
				h.LoadErrors = append(h.LoadErrors, runtime.LoadError{Source: runtime.SourcePlugin, File: ref, Reason: err.Error()})
				continue
			}
			srcs = append(srcs, src)
		}
	}
	found, errs := plugins.DiscoverBundles(h.Dirs)
	for _, e := range errs {
		h.LoadErrors = append(h.LoadErrors, runtime.LoadError{Source: runtime.SourcePlugin, File: e.File, Reason: e.Reason})
	}
	for _, src := range append(srcs, found...) {
		p, err := h.wasm.LoadPlugin(ctx, src)
		if err != nil {
			opts.Logger.Warn("plugin not loaded", "plugin", src.Manifest.Name, "err", err)
			h.LoadErrors = append(h.LoadErrors, runtime.LoadError{Source: runtime.SourcePlugin, File: src.Dir, Reason: err.Error()})
			continue
		}
		h.Registry.Add(runtime.SourcePlugin, p.Tools...)
		if p.Hooks != nil {
			p.Hooks.Worktree = h.Worktree
			h.Registry.AddHook(p.Hooks)
		}
		h.Plugins = append(h.Plugins, p)
	}
}
