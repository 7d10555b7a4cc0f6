package host

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"

	"github.com/toolhost/toolhost/internal/trust"
	"github.com/toolhost/toolhost/plugins/pkg"
	"github.com/toolhost/toolhost/plugins/wasm"
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
	var srcs []wasm.Bundle
	if len(h.Config.Plugin) > 0 {
		mgr := h.PluginManager(opts)
		lock, err := h.readLock(mgr.LockPath)
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
	for _, src := range srcs {
		if p := h.loadPlugin(ctx, opts.Logger, src); p != nil {
			h.lockedPlugins = append(h.lockedPlugins, p)
		}
	}
	h.folderPlugins = h.loadFolderPlugins(ctx, opts.Logger, h.toolDirs(), true)
	for _, p := range slices.Concat(h.lockedPlugins, h.folderPlugins) {
		h.Registry.Add(runtime.SourcePlugin, p.Tools...)
		if p.Hooks != nil {
			h.Registry.AddHook(p.Hooks)
		}
	}
	h.Plugins = slices.Concat(h.lockedPlugins, h.folderPlugins)
}

// readLock reads the project's toolhost.lock, unless the project is not
// trusted: the lock is the project's file, and it picks the package a
// plugin reference runs and the capabilities it runs with, so an
// untrusted one decides neither, even for a plugin the user's own config
// lists.
func (h *Host) readLock(path string) (*pkg.Lock, error) {
	if h.trust != nil && !h.trust.status.Trusted {
		return nil, fmt.Errorf("%s is the project's, which is not trusted, so no plugin it pins loads; review and trust the project with `%s`", pkg.LockFile, trust.Command)
	}
	return pkg.ReadLock(path)
}

// loadFolderPlugins loads the plugins of the plugin/ and plugins/ folders
// of the config directories dirs. At start (record) their problems go to
// LoadErrors; on a reload they are logged.
func (h *Host) loadFolderPlugins(ctx context.Context, log *slog.Logger, dirs []string, record bool) []*wasm.Plugin {
	found, errs := wasm.DiscoverBundles(dirs)
	for _, e := range errs {
		if record {
			h.LoadErrors = append(h.LoadErrors, e)
		} else {
			log.Warn("plugin not loaded", "file", e.File, "reason", e.Reason)
		}
	}
	var out []*wasm.Plugin
	for _, src := range found {
		if p := h.loadPluginRecord(ctx, log, src, record); p != nil {
			out = append(out, p)
		}
	}
	return out
}

func (h *Host) loadPlugin(ctx context.Context, log *slog.Logger, src wasm.Bundle) *wasm.Plugin {
	return h.loadPluginRecord(ctx, log, src, true)
}

func (h *Host) loadPluginRecord(ctx context.Context, log *slog.Logger, src wasm.Bundle, record bool) *wasm.Plugin {
	// A plugin whose required config values are missing or invalid is not
	// loaded: its tools would only fail, and the model would keep trying
	// them. The problem names the key and the fix (never a secret's value).
	if err := src.Manifest.CheckConfig(h.Config); err != nil {
		log.Warn("plugin not loaded", "plugin", src.Manifest.Name, "err", err)
		if record {
			h.LoadErrors = append(h.LoadErrors, runtime.LoadError{Source: runtime.SourcePlugin, File: src.Dir, Reason: err.Error()})
		}
		return nil
	}
	p, err := h.wasm.LoadPlugin(ctx, src)
	if err != nil {
		log.Warn("plugin not loaded", "plugin", src.Manifest.Name, "err", err)
		if record {
			h.LoadErrors = append(h.LoadErrors, runtime.LoadError{Source: runtime.SourcePlugin, File: src.Dir, Reason: err.Error()})
		}
		return nil
	}
	if p.Hooks != nil {
		p.Hooks.Worktree = h.Worktree
	}
	return p
}

// reloadFolderPlugins loads the folder plugins again after their folders
// changed and swaps them in: in one step each, the old plugins' tools give
// way to the new ones' (an id a locked package also provides goes back to
// it) and the old hooks to the new. The old plugins are unloaded after;
// calls in flight on them finish first.
//
// dirs are the directories the host watches: the config directories and
// the project's .toolhost folders that did not exist at start.
func (h *Host) reloadFolderPlugins(ctx context.Context, log *slog.Logger, dirs []string) {
	next := h.loadFolderPlugins(ctx, log, dirs, false)
	if ctx.Err() != nil {
		for _, p := range next {
			h.wasm.UnloadPlugin(p)
		}
		return
	}
	h.pluginMu.Lock()
	old := h.folderPlugins
	h.folderPlugins = next
	h.pluginMu.Unlock()

	var removed []string
	var oldHooks, newHooks []runtime.Hook
	for _, p := range old {
		for _, t := range p.Tools {
			removed = append(removed, t.ID())
		}
		if p.Hooks != nil {
			oldHooks = append(oldHooks, p.Hooks)
		}
	}
	var add []runtime.Tool
	for _, p := range h.lockedPlugins {
		for _, t := range p.Tools {
			if slices.Contains(removed, t.ID()) {
				add = append(add, t)
			}
		}
	}
	for _, p := range next {
		add = append(add, p.Tools...)
		if p.Hooks != nil {
			newHooks = append(newHooks, p.Hooks)
		}
	}
	h.Registry.Replace(runtime.SourcePlugin, removed, add...)
	h.Registry.SwapHooks(oldHooks, newHooks)
	for _, p := range old {
		h.wasm.UnloadPlugin(p)
	}
	log.Info("plugin folders reloaded", "plugins", len(next), "tools", len(add))
}
