package host

import (
	"context"
	"path/filepath"

	"github.com/toolhost/toolhost/plugins"
	"github.com/toolhost/toolhost/runtime"
)

// addWasm discovers wasm tools (tool/*.wasm, tools/*.wasm) in the config
// directories and adds them as runtime.SourceWasm. Modules that fail to
// load are recorded in LoadErrors and skipped.
func (h *Host) addWasm(ctx context.Context, opts Options) error {
	wh := plugins.NewHost(plugins.HostOptions{
		CacheDir: filepath.Join(opts.CacheDir, "wasm"),
		Config:   h.Config,
		Logger:   opts.Logger,
	})
	h.wasm = wh
	h.closers = append(h.closers, wh.Close)
	tools, errs := wh.Discover(ctx, h.Dirs)
	for _, e := range errs {
		h.LoadErrors = append(h.LoadErrors, LoadError{Source: string(runtime.SourceWasm), File: e.File, Reason: e.Reason})
	}
	h.Registry.Add(runtime.SourceWasm, tools...)
	return nil
}

// Watch keeps the registry's wasm tools in step with the tool folders until
// ctx ends: added, replaced and removed modules take effect without a
// restart, and calls in flight on a replaced module finish on the old one.
// Long-running hosts (the MCP server, the agent loop, embedding programs)
// start it in a goroutine; one-shot CLI commands need not.
func (h *Host) Watch(ctx context.Context) {
	if h.wasm == nil {
		return
	}
	h.wasm.Watch(ctx, h.Dirs, func(added []runtime.Tool, removed []string) {
		h.Registry.Remove(runtime.SourceWasm, removed...)
		h.Registry.Add(runtime.SourceWasm, added...)
	})
}
