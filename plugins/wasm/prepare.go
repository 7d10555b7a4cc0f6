package wasm

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// metaFromSection returns the tools a module lists in its toolhost.tools
// section, checked against its exports (sectionMeta). ok is false when
// there is no usable section: the module is then compiled and asked, as
// any Extism-ABI module is. A section that is present but unusable is
// logged with the reason, never trusted in part.
func (h *Engine) metaFromSection(m *module, data []byte) (meta moduleMeta, ok bool) {
	s, err := scanModule(data)
	if err != nil {
		// Compiling will report what is wrong with the binary.
		h.log.Debug("wasm module not scanned", "file", m.path, "err", err)
		return moduleMeta{}, false
	}
	if s.section == nil {
		return moduleMeta{}, false
	}
	meta, err = m.sectionMeta(s)
	if err != nil {
		h.log.Warn("wasm tool list section ignored; asking the module for its tools instead (rebuild it with `toolhost tool build`)",
			"file", m.path, "section", ToolsSection, "reason", err)
		return moduleMeta{}, false
	}
	return meta, true
}

// EmbedToolList prepares the module at path for fast listing and a fast
// first call, as `toolhost tool build` does after compiling a source: it
// asks the module for every tool's description and schema (compiling it,
// without touching the compilation cache), rewrites the file with them in
// its toolhost.tools section (replacing an older one; the file is
// replaced atomically), and then compiles the rewritten module with this
// Engine so its compilation cache holds what a call will compile. Any
// Extism-ABI module can be prepared; one that does not export tools is an
// error and the file is left as it was.
func (h *Engine) EmbedToolList(ctx context.Context, path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("embed tool list: %w", err)
	}
	name := strings.TrimSuffix(filepath.Base(path), ".wasm")
	if err := checkIDs(name); err != nil {
		return fmt.Errorf("embed tool list in %s: %w", path, err)
	}
	probe := NewEngine(EngineOptions{CacheDir: "-", Config: h.config(), Logger: h.log, HookTimeout: h.hookTimeout})
	defer probe.Close(context.WithoutCancel(ctx))
	m := &module{host: probe, path: path, name: name, groups: map[string]*groupOnce{}}
	meta, err := m.inspect(ctx, data)
	if err != nil {
		return fmt.Errorf("embed tool list in %s: %w", path, err)
	}
	out, err := withToolsSection(data, meta)
	if err != nil {
		return fmt.Errorf("embed tool list in %s: %w", path, err)
	}
	if err := replaceFile(path, out); err != nil {
		return fmt.Errorf("embed tool list in %s: %w", path, err)
	}
	c, err := h.compile(ctx, name, out, resolveLimits(h.config(), name, m, ""))
	if err != nil {
		return fmt.Errorf("warm the compilation cache for %s: %w", path, err)
	}
	c.close(context.WithoutCancel(ctx))
	return nil
}

// replaceFile writes data to path through a temporary file in the same
// folder and a rename, keeping path's permissions, so a watching host
// never loads half a module.
func replaceFile(path string, data []byte) error {
	mode := os.FileMode(0o644)
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if werr == nil && cerr == nil {
		werr = os.Chmod(tmp.Name(), mode)
	}
	if werr == nil && cerr == nil {
		werr = os.Rename(tmp.Name(), path)
	}
	if werr != nil || cerr != nil {
		os.Remove(tmp.Name())
		if werr == nil {
			werr = cerr
		}
		return werr
	}
	return nil
}

// CompileInBackground compiles, one module at a time and in the
// background, every module the Engine has loaded, with the limits its
// tools' calls will use (worktree resolves relative allowed paths, as in
// the calls' runtime.Context). A long-running host (the MCP server, the
// agent loop) calls it after Discover: listing answered without compiling
// (a toolhost.tools section or the description cache), and the first call
// then finds its module compiled. A call never waits for the background
// work beyond its own module: a call of a module not compiled yet compiles
// it at once, in parallel; a call of the module being compiled waits for
// that one compile. Failures are left for the call to report. Close stops
// the work.
func (h *Engine) CompileInBackground(worktree string) {
	ctx, done, err := h.begin(context.Background())
	if err != nil {
		return
	}
	h.mu.Lock()
	mods := make([]*module, 0, len(h.modules))
	for _, m := range h.modules {
		mods = append(mods, m)
	}
	h.mu.Unlock()
	slices.SortFunc(mods, func(a, b *module) int { return strings.Compare(a.path, b.path) })
	go func() {
		defer done()
		for _, m := range mods {
			for _, t := range m.tools() {
				if ctx.Err() != nil {
					return
				}
				l := m.limitsFor(h.config(), t.ID(), worktree)
				if _, err := m.group(ctx, l); err != nil {
					h.log.Debug("background compile", "file", m.path, "err", err)
				}
			}
		}
	}()
}
