package wasm

import (
	"context"
	"slices"
	"sync"

	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/source"
)

// ToolSource is the wasm tool modules (tool/*.wasm, tools/*.wasm) of the
// config directories as a tool source (runtime.SourceWasm), loaded on an
// Engine the caller owns and closes. A module that fails to load is a
// load error and is skipped. It is a source.Watcher: a long-running host
// sees modules added, replaced and removed, and calls in flight on a
// replaced module finish on the old one.
type ToolSource struct {
	e   *Engine
	env source.Env
	w   *toolWatch

	held source.Held // modules not loaded until a person trusts them
}

// NewToolSource returns the wasm tools of env.ToolDirs on e; a watching
// host (env.Watch) follows env.WatchDirs and compiles the loaded modules
// in the background, so the first call rarely waits for the compiler.
func NewToolSource(e *Engine, env source.Env) *ToolSource { return &ToolSource{e: e, env: env} }

// Kind is runtime.SourceWasm.
func (s *ToolSource) Kind() runtime.Source { return runtime.SourceWasm }

// Load discovers the modules and lists their tools.
func (s *ToolSource) Load(ctx context.Context) (source.Loaded, error) {
	tools, errs := s.e.Discover(ctx, s.env.ToolDirs)
	var out source.Loaded
	out.Tools = tools
	for _, e := range errs {
		out.Errors = append(out.Errors, runtime.LoadError{Source: runtime.SourceWasm, File: e.File, Reason: e.Reason})
	}
	if s.env.Watch {
		// A long-running host answers at once from the listing and
		// compiles modules while it waits for the first call.
		s.e.CompileInBackground(s.env.Worktree)
		s.w = s.e.watchTools(s.env.WatchDirs)
	}
	return out, nil
}

// Close does nothing: the Engine is the caller's, shared with plugins.
func (s *ToolSource) Close(context.Context) error { return nil }

// Folders are the tool folders of the watched directories.
func (s *ToolSource) Folders() []string {
	if s.w == nil {
		return nil
	}
	return s.w.Folders()
}

// Look reports modules added, replaced and removed since the last look.
// While the project's content is not what a person trusted, nothing new
// loads (source.Trust.AdmitChange), and what loads must be the very
// bytes trusted: the trust check is given each module's digest, which is
// what runs (a module's file is hashed again before it is compiled, and
// refused if it changed). A module's code runs to describe it only once
// its digest is admitted. Removals still apply. What was held back is
// unloaded and read again once a person's trust decisions change.
func (s *ToolSource) Look(ctx context.Context, apply func(source.Change)) {
	if s.w == nil {
		return
	}
	if s.held.Retry(s.env.Trust) {
		s.w.force = true // rescan though no module changed
	}
	var held []string
	var heldModules []*module
	// A changed module's code runs to describe it: not before the trust
	// check admits its bytes. What it refuses is held like a refused
	// change (modules are read in parallel).
	var mu sync.Mutex
	refused := map[string]string{}
	if s.env.Trust != nil {
		ctx = context.WithValue(ctx, runGate{}, func(path, sum string) bool {
			mu.Lock()
			defer mu.Unlock()
			if s.env.Trust.AdmitChange(map[string]string{path: sum}) {
				return true
			}
			refused[path] = sum
			return false
		})
	}
	defer func() {
		if len(refused) > 0 && s.held.Admit(s.env.Trust, refused) {
			s.w.force = true // trusted meanwhile: look again
		}
	}()
	s.w.Look(ctx, func(c source.Change) {
		if len(c.Add) > 0 && !s.held.Admit(s.env.Trust, contentOf(c.Add)) {
			for _, t := range c.Add {
				held = append(held, t.ID())
				if wt, ok := t.(*wasmTool); ok && !s.w.prior[wt.module] && !slices.Contains(heldModules, wt.module) {
					heldModules = append(heldModules, wt.module)
				}
			}
			c.Add = nil
		}
		apply(c)
	})
	for _, id := range held {
		s.w.current[id] = nil // not reported: the next rescan reports it again
	}
	// A held module is not kept: the rescan after a person trusts the
	// project reads and hashes the file again, rather than reusing what was
	// read before (a file can be swapped keeping its size and time).
	s.e.unload(heldModules)
}

// contentOf is what tools would load: each module's path and its
// digest.
func contentOf(tools []runtime.Tool) map[string]string {
	out := map[string]string{}
	for _, t := range tools {
		if wt, ok := t.(*wasmTool); ok {
			out[wt.module.path] = wt.module.sum
		}
	}
	return out
}

var (
	_ source.Source  = (*ToolSource)(nil)
	_ source.Watcher = (*ToolSource)(nil)
)
