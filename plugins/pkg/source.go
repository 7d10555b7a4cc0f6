package pkg

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"path/filepath"
	"slices"
	"sync"

	"github.com/toolhost/toolhost/internal/confine/trust"
	"github.com/toolhost/toolhost/plugins/wasm"
	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/config"
	"github.com/toolhost/toolhost/runtime/source"
)

// NewManager returns the manager of a project's plugin packages:
// toolhost.lock at the project root (worktree), the cache under
// cacheDir/plugins, the config's trust policy and package size limit.
// Starting a host only reads through it; the CLI's `toolhost plugin`
// commands also add, update and remove.
func NewManager(cfg *config.Config, worktree, cacheDir string, log *slog.Logger) *Manager {
	return &Manager{
		Cache:    Cache{Dir: filepath.Join(cacheDir, "plugins")},
		LockPath: filepath.Join(worktree, LockFile),
		Base:     worktree,
		Trust:    cfg.Trust,
		// Downloads stop at plugin_limits.max_archive_bytes.
		MaxArchiveBytes: cfg.PluginLimits.ArchiveBytes(),
		// A module healed from its archive at start is logged: the user
		// learns that something changed their cache.
		Logger: log,
	}
}

// SourceOptions configure a plugin Source.
type SourceOptions struct {
	// Engine loads the plugins' modules; the caller owns and closes it.
	Engine *wasm.Engine
	Env    source.Env
	// ProjectTrusted is false while the project is not trusted: its
	// toolhost.lock is the project's file, and it picks the package a
	// reference runs and the capabilities it runs with, so an untrusted
	// one decides neither, even for a plugin the user's own config lists.
	ProjectTrusted bool
}

// Source is the plugins as a tool source (runtime.SourcePlugin): the
// packages the config lists (from the cache, as toolhost.lock pins them;
// never from the network), then the plugins found in the config
// directories' plugin/ and plugins/ folders. Their tools join the
// registry and their hooks run on every call, in that order. A plugin
// that is not locked, not cached, altered or broken is a load error and
// is skipped. It is a source.Watcher: a watching host reloads the folder
// plugins when their folders change; packages change only through
// `toolhost plugin`.
type Source struct {
	opts   SourceOptions
	log    *slog.Logger
	locked []*wasm.Plugin
	watch  *wasm.PluginWatch
	held   source.Held // a folder change not loaded until a person trusts it

	mu     sync.Mutex
	folder []*wasm.Plugin // reloaded by Look
}

// NewSource returns the plugin source of opts.
func NewSource(opts SourceOptions) *Source {
	log := opts.Env.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Source{opts: opts, log: log}
}

// Kind is runtime.SourcePlugin.
func (s *Source) Kind() runtime.Source { return runtime.SourcePlugin }

// Load loads the locked packages, then the folder plugins.
func (s *Source) Load(ctx context.Context) (source.Loaded, error) {
	env := s.opts.Env
	if env.Watch {
		// Before the plugins load: what changes while they do is reloaded.
		s.watch = wasm.WatchPluginFolders(env.WatchDirs)
	}
	var out source.Loaded
	for _, b := range s.lockedBundles(&out) {
		if p := s.load(ctx, b, &out.Errors); p != nil {
			s.locked = append(s.locked, p)
		}
	}
	s.folder = s.loadFolder(ctx, env.ToolDirs, &out.Errors)
	for _, p := range s.Plugins() {
		out.Tools = append(out.Tools, p.Tools...)
		if p.Hooks != nil {
			out.Hooks = append(out.Hooks, p.Hooks)
		}
	}
	return out, nil
}

// Plugins are the plugins loaded, in hook order: packages, then folders.
func (s *Source) Plugins() []*wasm.Plugin {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Concat(s.locked, s.folder)
}

// lockedBundles opens the packages the config lists, as the lock pins
// them; what cannot be opened is a load error in out.
func (s *Source) lockedBundles(out *source.Loaded) []wasm.Bundle {
	cfg := s.opts.Env.Config
	if len(cfg.Plugin) == 0 {
		return nil
	}
	mgr := NewManager(cfg, s.opts.Env.Worktree, s.opts.Env.CacheDir, s.log)
	lock, err := s.readLock(mgr.LockPath)
	if err != nil {
		out.Errors = append(out.Errors, runtime.LoadError{Source: runtime.SourcePlugin, File: mgr.LockPath, Reason: err.Error()})
		lock = &Lock{}
	}
	var bundles []wasm.Bundle
	for _, ref := range cfg.Plugin {
		e, ok := lock.ByRef(ref)
		if !ok {
			out.Errors = append(out.Errors, runtime.LoadError{Source: runtime.SourcePlugin, File: ref,
				Reason: fmt.Sprintf("not in %s; run `toolhost plugin add %s` to fetch it and agree to its capabilities", LockFile, ref)})
			continue
		}
		b, err := mgr.Open(*e)
		if err != nil {
			out.Errors = append(out.Errors, runtime.LoadError{Source: runtime.SourcePlugin, File: ref, Reason: err.Error()})
			continue
		}
		bundles = append(bundles, b)
	}
	return bundles
}

// readLock reads the project's toolhost.lock, unless the project is not
// trusted (SourceOptions.ProjectTrusted).
func (s *Source) readLock(path string) (*Lock, error) {
	if !s.opts.ProjectTrusted {
		return nil, fmt.Errorf("%s is the project's, which is not trusted, so no plugin it pins loads; review and trust the project with `%s`", LockFile, trust.Command)
	}
	return ReadLock(path)
}

// loadFolder loads the plugins of the plugin folders of dirs. Problems go
// to errs when it is not nil (at start), else to the log (a reload).
func (s *Source) loadFolder(ctx context.Context, dirs []string, errs *[]runtime.LoadError) []*wasm.Plugin {
	found, problems := wasm.DiscoverBundles(dirs)
	for _, e := range problems {
		if errs != nil {
			*errs = append(*errs, e)
		} else {
			s.log.Warn("plugin not loaded", "file", e.File, "reason", e.Reason)
		}
	}
	var out []*wasm.Plugin
	for _, b := range found {
		if p := s.load(ctx, b, errs); p != nil {
			out = append(out, p)
		}
	}
	return out
}

// load loads one plugin, or reports why it did not.
func (s *Source) load(ctx context.Context, b wasm.Bundle, errs *[]runtime.LoadError) *wasm.Plugin {
	// A plugin whose required config values are missing or invalid is not
	// loaded: its tools would only fail, and the model would keep trying
	// them. The problem names the key and the fix (never a secret's value).
	err := b.Manifest.CheckConfig(s.opts.Env.Config)
	var p *wasm.Plugin
	if err == nil {
		p, err = s.opts.Engine.LoadPlugin(ctx, b)
	}
	if err != nil {
		s.log.Warn("plugin not loaded", "plugin", b.Manifest.Name, "err", err)
		if errs != nil {
			*errs = append(*errs, runtime.LoadError{Source: runtime.SourcePlugin, File: b.Dir, Reason: err.Error()})
		}
		return nil
	}
	if p.Hooks != nil {
		p.Hooks.Worktree = s.opts.Env.Worktree
	}
	return p
}

// Close does nothing: the Engine, which holds the plugins' modules, is
// the caller's.
func (s *Source) Close(context.Context) error { return nil }

// Folders are the watched plugin folders.
func (s *Source) Folders() []string {
	if s.watch == nil {
		return nil
	}
	return s.watch.Folders()
}

// pluginContent is what plugins loaded: each module's path and the
// digest of the bytes read from it.
func pluginContent(plugins []*wasm.Plugin) map[string]string {
	out := map[string]string{}
	for _, p := range plugins {
		maps.Copy(out, p.Content())
	}
	return out
}

// Look reloads the folder plugins after their folders changed and hands
// apply the swap: in one step, the old plugins' tools give way to the new
// ones' (an id a package also provides goes back to it) and the old hooks
// to the new. The old plugins are unloaded after; calls in flight on them
// finish first. While the project's content is not what a person
// trusted, nothing is reloaded.
func (s *Source) Look(ctx context.Context, apply func(source.Change)) {
	if s.watch == nil {
		return
	}
	// A change held back until a person trusts it is looked at again
	// once their decisions change.
	changed := s.watch.Changed()
	if !changed && !s.held.Retry(s.opts.Env.Trust) {
		return
	}
	if !s.held.Admit(s.opts.Env.Trust, nil) {
		return
	}
	next := s.loadFolder(ctx, s.opts.Env.WatchDirs, nil)
	// And the modules loaded must be the bytes trusted: a file swapped
	// between the check above and the load is refused.
	if ctx.Err() != nil || !s.held.Admit(s.opts.Env.Trust, pluginContent(next)) {
		for _, p := range next {
			s.opts.Engine.UnloadPlugin(p)
		}
		return
	}
	s.mu.Lock()
	old := s.folder
	s.folder = next
	s.mu.Unlock()

	var c source.Change
	for _, p := range old {
		for _, t := range p.Tools {
			c.Remove = append(c.Remove, t.ID())
		}
		if p.Hooks != nil {
			c.OldHooks = append(c.OldHooks, p.Hooks)
		}
	}
	for _, p := range s.locked {
		for _, t := range p.Tools {
			if slices.Contains(c.Remove, t.ID()) {
				c.Add = append(c.Add, t)
			}
		}
	}
	for _, p := range next {
		c.Add = append(c.Add, p.Tools...)
		if p.Hooks != nil {
			c.NewHooks = append(c.NewHooks, p.Hooks)
		}
	}
	apply(c)
	for _, p := range old {
		s.opts.Engine.UnloadPlugin(p)
	}
	s.log.Info("plugin folders reloaded", "plugins", len(next), "tools", len(c.Add))
}

var (
	_ source.Source  = (*Source)(nil)
	_ source.Watcher = (*Source)(nil)
)
