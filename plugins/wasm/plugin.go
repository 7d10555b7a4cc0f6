package wasm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/toolhost/toolhost/hostfns"
	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/config"
)

// PluginDirs returns the plugin folders of a config directory, in the
// order they are searched: plugin/ then plugins/.
func PluginDirs(configDir string) []string {
	return []string{filepath.Join(configDir, "plugin"), filepath.Join(configDir, "plugins")}
}

// Bundle is a plugin ready to load: its manifest and where its module
// files are. Package plugins/pkg makes one from a locked package in the
// cache; DiscoverBundles makes them from the config directories.
type Bundle struct {
	Manifest Manifest
	// Dir is where the plugin came from, for messages.
	Dir string
	// Modules are the files of Manifest.Modules, in that order.
	Modules []ModuleFile
	// Granted are the capabilities the person agreed to; the user's
	// "wasm" config for a tool, module or plugin name overrides them.
	Granted Capabilities
	// Locked marks an installed package, pinned in toolhost.lock by hash
	// with capabilities a person accepted: "wasm" grants reach it by name
	// from any config. A folder plugin is granted like a tool module in
	// its folder (config.Config.WasmFor).
	Locked bool
	// ManifestSum is the hex SHA-256 of the toolhost-plugin.json bytes
	// Manifest was read from ("" for a bare module): with the modules'
	// digests, what a trust check of the bytes loaded judges
	// (Plugin.Content).
	ManifestSum string
}

// ModuleFile is one wasm file of a plugin.
type ModuleFile struct {
	// Name is the file's name in the manifest ("jira.wasm").
	Name string
	// Path is where the bytes are on disk.
	Path string
	// SHA256 is the expected hex digest of the bytes; "" accepts any.
	// A mismatch refuses the module, now and whenever it is compiled.
	SHA256 string
}

// Plugin is a loaded plugin: its tools and its hooks.
type Plugin struct {
	Manifest Manifest
	Dir      string
	// Tools are the plugin's tools, to add as runtime.SourcePlugin.
	Tools []runtime.Tool
	// Hooks runs the plugin's hook exports; nil when it has none. Add it
	// with Registry.AddHook.
	Hooks *Hooks
	// Granted are the capabilities the plugin's modules run with (unless
	// the user's config says otherwise).
	Granted Capabilities

	mods        []*module // what UnloadPlugin closes
	manifestSum string    // Bundle.ManifestSum
}

// Content is what the plugin was loaded from: each module file's path
// and its hex SHA-256, which is what runs (a module whose file changes
// since is not compiled), and its manifest's path and the digest of the
// bytes read. For a trust check of
// the very bytes loaded (source.Trust.AdmitChange).
func (p *Plugin) Content() map[string]string {
	out := make(map[string]string, len(p.mods)+1)
	for _, m := range p.mods {
		out[m.path] = m.sum
	}
	if p.manifestSum != "" {
		// Its capabilities, name and module list are what it runs with.
		out[filepath.Join(p.Dir, ManifestFile)] = p.manifestSum
	}
	return out
}

// pluginInfo is what a module loaded as part of a plugin knows of it.
type pluginInfo struct {
	name    string
	granted Capabilities
	dir     string // Bundle.Dir
	locked  bool   // Bundle.Locked
}

// pluginMeta is what loading a plugin module learns by calling it, cached
// by the module's sha256 like a tool module's moduleMeta.
type pluginMeta struct {
	ABI    string       `json:"abi"`
	Tools  []toolMeta   `json:"tools,omitempty"`
	Compat []compatMeta `json:"compat,omitempty"`
	Hooks  []string     `json:"hooks,omitempty"`
}

// DirBundle reads the plugin in dir (its toolhost-plugin.json and
// modules). Granted is what the manifest requests: a directory the user
// placed in a config folder or named by path is trusted like the config
// itself.
func DirBundle(dir string) (Bundle, error) {
	m, sum, err := readManifest(dir)
	if err != nil {
		return Bundle{}, err
	}
	src := Bundle{Manifest: m, Dir: dir, Granted: m.Capabilities, ManifestSum: sum}
	for _, mod := range m.Modules {
		src.Modules = append(src.Modules, ModuleFile{Name: mod, Path: filepath.Join(dir, filepath.FromSlash(mod))})
	}
	return src, nil
}

// wasmBundle makes a one-module plugin of a bare plugin/*.wasm file: its
// name is the file's, and it is granted nothing beyond what the user's
// "wasm" config grants that name.
func wasmBundle(path string) Bundle {
	name := strings.TrimSuffix(filepath.Base(path), ".wasm")
	return Bundle{
		Manifest: Manifest{Name: name, Version: "local", ABI: hostfns.ABIVersion, Modules: []string{filepath.Base(path)}},
		Dir:      path,
		Modules:  []ModuleFile{{Name: filepath.Base(path), Path: path}},
	}
}

// DiscoverBundles finds the plugins in the config directories dirs, in
// order: for each directory, plugin/ then plugins/, and in each, sorted
// by name, *.wasm files (one-module plugins named after the file) and
// <name>/toolhost-plugin.json directories. A broken manifest is reported
// and skipped.
func DiscoverBundles(dirs []string) ([]Bundle, []runtime.LoadError) {
	var out []Bundle
	var errs []runtime.LoadError
	for _, d := range dirs {
		for _, pd := range PluginDirs(d) {
			entries, err := os.ReadDir(pd)
			if err != nil {
				continue
			}
			sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
			for _, e := range entries {
				p := filepath.Join(pd, e.Name())
				switch {
				case e.IsDir():
					if _, err := os.Stat(filepath.Join(p, ManifestFile)); err != nil {
						continue
					}
					src, err := DirBundle(p)
					if err != nil {
						errs = append(errs, runtime.LoadError{Source: runtime.SourcePlugin, File: p, Reason: err.Error()})
						continue
					}
					out = append(out, src)
				case strings.HasSuffix(e.Name(), ".wasm"):
					out = append(out, wasmBundle(p))
				}
			}
		}
	}
	return out, errs
}

// LoadPlugin loads a plugin's modules and returns its tools and hooks. A
// module may export tools (docs/abi.md), hooks (tool_execute_before,
// tool_execute_after, tool_definition, event), and the describe/call pair
// of mcp.run servlets and hyper-mcp plugins; a module exporting none of
// them is refused, as is one whose bytes differ from ModuleFile.SHA256.
// Any module failing fails the plugin: half a plugin's hooks could let
// through what the whole would refuse.
//
// Tool ids: a one-module plugin's tools are named after the plugin
// (<plugin>, <plugin>_N), a module of a larger plugin's after its file;
// describe/call tools are <plugin>_<tool>.
func (h *Engine) LoadPlugin(ctx context.Context, src Bundle) (*Plugin, error) {
	if err := src.Manifest.Validate(); err != nil {
		return nil, fmt.Errorf("plugin %s: %w", src.Dir, err)
	}
	info := &pluginInfo{name: src.Manifest.Name, granted: src.Granted, dir: src.Dir, locked: src.Locked}
	p := &Plugin{Manifest: src.Manifest, Dir: src.Dir, Granted: src.Granted, manifestSum: src.ManifestSum}
	var mods []*module
	var hookMods []*module
	fail := func(err error) (*Plugin, error) {
		for _, m := range mods {
			m.close(context.Background())
		}
		return nil, fmt.Errorf("plugin %s (%s): %w", src.Manifest.Name, src.Dir, err)
	}
	seen := map[string]string{}
	for _, mf := range src.Modules {
		name := src.Manifest.Name
		if len(src.Modules) > 1 {
			name = strings.TrimSuffix(filepath.Base(mf.Name), ".wasm")
		}
		m, err := h.loadPluginModule(ctx, mf, name, info)
		if err != nil {
			return fail(fmt.Errorf("module %s: %w", mf.Name, err))
		}
		mods = append(mods, m)
		for _, t := range m.pluginTools() {
			if other, dup := seen[t.ID()]; dup {
				return fail(fmt.Errorf("tool id %s is provided by both %s and %s; rename one module or tool", t.ID(), other, mf.Name))
			}
			seen[t.ID()] = mf.Name
			p.Tools = append(p.Tools, t)
		}
		if len(m.hooks) > 0 {
			hookMods = append(hookMods, m)
		}
	}
	if len(hookMods) > 0 {
		p.Hooks = newHooks(h, src.Manifest.Name, hookMods)
	}
	p.mods = mods
	h.mu.Lock()
	h.pluginMods = append(h.pluginMods, mods...)
	if p.Hooks != nil {
		h.pluginHooks = append(h.pluginHooks, p.Hooks)
	}
	h.mu.Unlock()
	return p, nil
}

// loadPluginModule reads, checks and inspects one module of a plugin.
func (h *Engine) loadPluginModule(ctx context.Context, mf ModuleFile, name string, info *pluginInfo) (*module, error) {
	if err := checkIDs(name); err != nil {
		return nil, err
	}
	data, err := os.ReadFile(mf.Path)
	if err != nil {
		return nil, fmt.Errorf("read: %w", err)
	}
	sum := sha256.Sum256(data)
	hexSum := hex.EncodeToString(sum[:])
	if mf.SHA256 != "" && mf.SHA256 != hexSum {
		return nil, fmt.Errorf("%s has sha256 %s, but the package says %s: the file was changed after it was verified; run `toolhost plugin verify` to see what changed and `toolhost plugin verify --repair` to restore it", mf.Path, hexSum, mf.SHA256)
	}
	if len(data) < 8 || string(data[:4]) != string(wasmMagic) {
		return nil, errors.New("not a WebAssembly module (no \\0asm header)")
	}
	m := &module{host: h, path: mf.Path, name: name, sum: hexSum, groups: map[string]*groupOnce{}, plugin: info}
	meta, ok := h.readPluginMeta(hexSum)
	if !ok {
		if meta, err = m.inspectPlugin(ctx, data); err != nil {
			return nil, err
		}
		h.writePluginMeta(hexSum, meta)
	}
	for _, tm := range meta.Tools {
		if id := m.toolID(tm.Export); !validID().MatchString(id) {
			return nil, fmt.Errorf("tool id %q is not a valid tool name for model APIs (%s)", id, validID())
		}
	}
	m.meta = moduleMeta{ABI: meta.ABI, Tools: meta.Tools}
	m.compat = meta.Compat
	m.hooks = meta.Hooks
	return m, nil
}

// inspectPlugin compiles a plugin module with default limits and reads
// what it provides: tools, describe/call tools and hooks.
func (m *module) inspectPlugin(ctx context.Context, data []byte) (pluginMeta, error) {
	meta := pluginMeta{ABI: hostfns.ABIVersion}
	err := m.inspectWith(ctx, data, func(c *compiled, in *instance, healthy *bool) error {
		fns := in.exports()
		for _, hk := range hookExports {
			if _, ok := fns[hk]; ok {
				meta.Hooks = append(meta.Hooks, hk)
			}
		}
		_, hasDescribe := fns[exportDescribe]
		_, hasCall := fns[exportCall]
		if hasDescribe != hasCall {
			return fmt.Errorf("exports %s without %s: an mcp.run/hyper-mcp tool module needs both", map[bool]string{true: exportDescribe, false: exportCall}[hasDescribe], map[bool]string{true: exportCall, false: exportDescribe}[hasDescribe])
		}
		if hasDescribe {
			out, err := m.host.callMeta(ctx, c, in, m.name, exportDescribe)
			if err != nil {
				*healthy = false
				return err
			}
			if meta.Compat, err = parseDescribe(m.name, out); err != nil {
				return err
			}
		}
		exports, err := toolExports(fns)
		if err != nil && !strings.HasPrefix(err.Error(), "exports no tools") {
			return err
		}
		for _, export := range exports {
			tm, err := m.toolMeta(ctx, c, in, export, "rename the export", healthy)
			if err != nil {
				return err
			}
			meta.Tools = append(meta.Tools, tm)
		}
		if len(meta.Tools) == 0 && len(meta.Compat) == 0 && len(meta.Hooks) == 0 {
			return fmt.Errorf("exports no tools and no hooks: a plugin module exports tools (description, schema, execute), hooks (%s) or describe and call (see docs/plugins.md)", strings.Join(hookExports, ", "))
		}
		return nil
	})
	if err != nil {
		return pluginMeta{}, err
	}
	return meta, nil
}

// pluginTools returns the tools of a plugin module: ABI tools and
// describe/call tools.
func (m *module) pluginTools() []runtime.Tool {
	out := m.tools()
	for _, cm := range m.compat {
		out = append(out, &compatTool{id: m.plugin.name + "_" + cm.Name, module: m, meta: cm})
	}
	return out
}

// limitsFor resolves the limits of a call to tool id: the user's "wasm"
// config by tool id, module or plugin name wins; for a plugin module, the
// capabilities granted fill in what the user did not set.
func (m *module) limitsFor(cfg *config.Config, id, worktree string) limits {
	if m.plugin == nil {
		return resolveLimits(cfg, id, m, worktree)
	}
	wc, key, _ := cfg.WasmFor(m.grantFile(id))
	key = strings.TrimPrefix(key, "wasm.")
	g := m.plugin.granted
	if len(wc.AllowedHosts) == 0 {
		wc.AllowedHosts = g.AllowedHosts
	}
	if len(wc.AllowedPaths) == 0 {
		wc.AllowedPaths = g.AllowedPaths
	}
	if wc.MemoryMaxMB == 0 {
		wc.MemoryMaxMB = g.MemoryMaxMB
	}
	if wc.TimeoutMS == 0 {
		wc.TimeoutMS = g.TimeoutMS
	}
	if key == "" {
		key = m.plugin.name
	}
	return limitsOf(wc, key, worktree)
}

// grantFile is tool id of m as "wasm" grants see it (config.ToolFile).
func (m *module) grantFile(id string) config.ToolFile {
	if m.plugin == nil {
		return config.ToolFile{Names: []string{id, m.name}, Path: m.path}
	}
	return config.ToolFile{Names: []string{id, m.name, m.plugin.name}, Path: m.path, Dir: m.plugin.dir, Package: m.plugin.locked}
}

// readPluginMeta returns the cached inspection of a plugin module.
func (h *Engine) readPluginMeta(sum string) (pluginMeta, bool) {
	var meta pluginMeta
	if !h.readCache(sum+".plugin.json", &meta) || meta.ABI != hostfns.ABIVersion {
		return pluginMeta{}, false
	}
	return meta, true
}

// writePluginMeta caches a plugin module's inspection.
func (h *Engine) writePluginMeta(sum string, meta pluginMeta) { h.writeCache(sum+".plugin.json", meta) }
