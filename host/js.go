package host

import (
	"context"
	"os"
	"path/filepath"
	"sync"

	"github.com/toolhost/toolhost/internal/jstool"
	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/config"
)

// addJS loads the TypeScript and JavaScript tool files (tool/*.ts and
// tool/*.js in the config directories, and OpenCode's tool folders unless
// "compat": {"opencode": false}) and adds their exports as
// runtime.SourceJS. The engine is fetched with npm the first time a file
// is found; when that fails, every JS file gets the same load error and
// everything else still loads.
func (h *Host) addJS(ctx context.Context, opts Options) {
	configHome := opts.Env(config.EnvXDGConfigHome)
	if configHome == "" {
		if home, err := os.UserHomeDir(); err == nil {
			configHome = filepath.Join(home, ".config")
		}
	}
	files := jstool.Files(jstool.Where{ConfigDirs: h.Dirs, OpenCode: h.Config.Compat.OpenCodeTools(),
		Directory: h.Directory, Worktree: h.Worktree, ConfigHome: configHome})
	if len(files) == 0 {
		return
	}
	engine, err := jstool.LoadEngine(ctx, filepath.Join(opts.CacheDir, "engines"))
	if err != nil {
		for _, f := range files {
			h.LoadErrors = append(h.LoadErrors, runtime.LoadError{Source: runtime.SourceJS, File: f, Reason: err.Error()})
		}
		return
	}
	memMax := config.DefaultWasmMemoryMB
	for _, wc := range h.Config.Wasm {
		memMax = max(memMax, wc.MemoryMaxMB)
	}
	jsCache := filepath.Join(opts.CacheDir, "js")
	rt, err := jstool.NewRuntime(ctx, engine, memMax, jstool.CompiledDir(jsCache))
	if err != nil {
		for _, f := range files {
			h.LoadErrors = append(h.LoadErrors, runtime.LoadError{Source: runtime.SourceJS, File: f, Reason: err.Error()})
		}
		return
	}
	h.life.onClose("JS engine", rt.Close)
	loaded := make([]*jstool.File, len(files))
	errs := make([]error, len(files))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	for i, f := range files {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			loaded[i], errs[i] = jstool.Load(ctx, f, jstool.LoadOptions{Runtime: rt, CacheDir: jsCache})
		}()
	}
	wg.Wait()
	var tools []runtime.Tool
	for i, f := range loaded {
		if errs[i] != nil {
			h.LoadErrors = append(h.LoadErrors, runtime.LoadError{Source: runtime.SourceJS, File: files[i], Reason: errs[i].Error()})
			continue
		}
		h.life.onClose("JS tool "+f.Path, f.Close)
		for _, t := range f.Tools(opts.Logger) {
			tools = append(tools, t)
		}
	}
	h.Registry.Add(runtime.SourceJS, tools...)
}
