package plugins

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	extism "github.com/extism/go-sdk"
	"github.com/tetratelabs/wazero"

	"github.com/toolhost/toolhost/internal/hostfns"
	"github.com/toolhost/toolhost/runtime"
)

// validID is what model APIs accept as a tool name.
var validID = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// wasmMagic starts every wasm binary.
var wasmMagic = []byte{0x00, 'a', 's', 'm'}

// module is one .wasm file and the tools it provides.
type module struct {
	host *Engine
	path string
	name string // file name without .wasm
	sum  string // hex sha256 of the file
	info fileInfo
	meta moduleMeta

	// Set for a module loaded as part of a plugin (LoadPlugin).
	plugin *pluginInfo
	compat []compatMeta // describe/call tools
	hooks  []string     // hook exports

	mu     sync.Mutex
	groups map[string]*groupOnce // limits.key() → compiled module
	closed bool
}

type groupOnce struct {
	once sync.Once
	c    *compiled
	err  error
}

// fileInfo is what the watcher compares to notice a change.
type fileInfo struct {
	size  int64
	mtime int64
}

// moduleMeta is what listing needs, cached on disk by the module's sha256
// so a warm listing compiles nothing.
type moduleMeta struct {
	ABI   string     `json:"abi"`
	Tools []toolMeta `json:"tools"`
}

// toolMeta describes one tool of a module.
type toolMeta struct {
	Export      string          `json:"export"` // "" for the main tool, else N
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"schema"`
	// Traits are what the optional traits (N_traits) export declares; nil
	// when the tool declares nothing (traits.go).
	Traits *declaredTraits `json:"traits,omitempty"`
}

func (m *module) toolID(export string) string {
	if export == "" {
		return m.name
	}
	return m.name + "_" + export
}

// exportName is the guest export implementing kind for a tool.
func exportName(export, kind string) string {
	if export == "" {
		return kind
	}
	return export + "_" + kind
}

// load reads a module and its tools' descriptions and schemas, from the
// cache when the module's sha256 is known, else by compiling it and
// calling description and schema.
func (h *Engine) load(ctx context.Context, path string) (*module, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	name := strings.TrimSuffix(filepath.Base(path), ".wasm")
	// Ids depend on the file name, which the caches do not know: check
	// them first, on every load.
	if err := checkIDs(name); err != nil {
		return nil, err
	}
	info := fileInfo{size: st.Size(), mtime: st.ModTime().UnixNano()}
	newModule := func(sum string) *module {
		return &module{host: h, path: path, name: name, sum: sum, info: info, groups: map[string]*groupOnce{}}
	}
	// Warm path: the file is unchanged since its sha256 was last computed
	// (same size and modification time), and its tools are cached — no
	// read, no hash, no compile. The sha256 is checked again before the
	// module is compiled for a call.
	if sum, ok := h.index.lookup(path, info); ok {
		if meta, ok := h.readMeta(sum); ok {
			m := newModule(sum)
			if err := m.setMeta(meta); err != nil {
				return nil, err
			}
			return m, nil
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	// A file still being written (copied into a watched folder) must not
	// be remembered under the size and time of a later state: the watcher
	// would take the finished file for the half-read one.
	if st, err := os.Stat(path); err != nil || (fileInfo{st.Size(), st.ModTime().UnixNano()}) != info {
		return nil, errors.New("the file changed while it was read; it is loaded again once it stops changing")
	}
	if len(data) < 8 || string(data[:4]) != string(wasmMagic) {
		return nil, errors.New("not a WebAssembly module (no \\0asm header); remove it from the tool folder or rebuild it")
	}
	sum := sha256.Sum256(data)
	m := newModule(hex.EncodeToString(sum[:]))
	h.index.store(path, info, m.sum)
	if meta, ok := h.readMeta(m.sum); ok {
		if err := m.setMeta(meta); err != nil {
			return nil, err
		}
		return m, nil
	}
	meta, err := m.inspect(ctx, data)
	if err != nil {
		return nil, err
	}
	m.meta = meta
	h.writeMeta(m.sum, meta)
	return m, nil
}

// setMeta adopts cached tool descriptions, checking the ids they make
// with this file's name.
func (m *module) setMeta(meta moduleMeta) error {
	for _, tm := range meta.Tools {
		if id := m.toolID(tm.Export); !validID.MatchString(id) {
			return fmt.Errorf("tool id %q is not a valid tool name for model APIs (%s); rename the file", id, validID)
		}
	}
	m.meta = meta
	return nil
}

// checkIDs refuses a file name that cannot prefix valid tool ids. Named
// tools' suffixes are checked when the exports are read.
func checkIDs(name string) error {
	if !validID.MatchString(name) {
		return fmt.Errorf("tool id %q is not a valid tool name for model APIs (%s); rename the file", name, validID)
	}
	return nil
}

// inspect compiles the module with default limits, finds its tools from
// its exports, and calls each tool's description and schema. The compiled
// module is kept for the first call.
func (m *module) inspect(ctx context.Context, data []byte) (moduleMeta, error) {
	meta := moduleMeta{ABI: hostfns.ABIVersion}
	err := m.inspectWith(ctx, data, func(c *compiled, in *instance, healthy *bool) error {
		exports, err := toolExports(in.p.Module().ExportedFunctions())
		if err != nil {
			return err
		}
		for _, export := range exports {
			tm, err := m.toolMeta(ctx, c, in, export, "rename the file or the export", healthy)
			if err != nil {
				return err
			}
			meta.Tools = append(meta.Tools, tm)
		}
		return nil
	})
	if err != nil {
		return moduleMeta{}, err
	}
	return meta, nil
}

// inspectWith compiles the module with default limits, takes an instance
// and runs read on it. When read succeeds the compiled module is kept for
// the first call; otherwise it is closed. read sets *healthy to false when
// the instance must not be reused.
func (m *module) inspectWith(ctx context.Context, data []byte, read func(c *compiled, in *instance, healthy *bool) error) error {
	l := resolveLimits(nil, m.name, m.name, "")
	c, err := m.host.compile(ctx, m.name, data, l)
	if err != nil {
		return err
	}
	in, err := c.get(ctx)
	if err != nil {
		c.close(context.Background())
		return explainInstantiate(err)
	}
	healthy := true
	err = read(c, in, &healthy)
	c.release(in, healthy)
	if err != nil {
		c.close(context.Background())
		return err
	}
	g := &groupOnce{c: c}
	g.once.Do(func() {})
	m.mu.Lock()
	closed := m.closed
	if !closed {
		m.groups[l.key()] = g
	}
	m.mu.Unlock()
	if closed {
		c.close(context.Background())
	}
	return nil
}

// toolExports finds the tools a module exports: "" when it exports
// description, schema and execute, and N for every N_description,
// N_schema, N_execute triple. A partial triple is an error.
func toolExports(fns map[string]extism.FunctionDefinition) ([]string, error) {
	kinds := []string{hostfns.ExportDescription, hostfns.ExportSchema, hostfns.ExportExecute}
	have := map[string]map[string]bool{}
	for name := range fns {
		for _, k := range kinds {
			if name == k {
				add(have, "", k)
			} else if prefix, ok := strings.CutSuffix(name, "_"+k); ok && prefix != "" {
				add(have, prefix, k)
			}
		}
	}
	var out, problems []string
	for prefix, ks := range have {
		var missing []string
		for _, k := range kinds {
			if !ks[k] {
				missing = append(missing, exportName(prefix, k))
			}
		}
		if len(missing) > 0 {
			problems = append(problems, fmt.Sprintf("missing export %s", strings.Join(missing, ", ")))
			continue
		}
		out = append(out, prefix)
	}
	sort.Strings(out)
	sort.Strings(problems)
	if len(problems) > 0 {
		return nil, fmt.Errorf("%s (a tool needs description, schema and execute; see docs/abi.md)", strings.Join(problems, "; "))
	}
	if len(out) == 0 {
		return nil, errors.New("exports no tools: a module must export description, schema and execute, or N_description, N_schema and N_execute (see docs/abi.md)")
	}
	return out, nil
}

func add(m map[string]map[string]bool, prefix, kind string) {
	if m[prefix] == nil {
		m[prefix] = map[string]bool{}
	}
	m[prefix][kind] = true
}

// checkSchema refuses a schema that is not a valid JSON Schema for an
// object, as the registry would later.
func checkSchema(id string, schema []byte) error {
	var obj map[string]any
	if err := json.Unmarshal(schema, &obj); err != nil {
		return fmt.Errorf("schema of %s is not a JSON object: %w", id, err)
	}
	if t, ok := obj["type"]; ok && t != "object" {
		return fmt.Errorf(`schema of %s has type %v; tool arguments must be an object schema ("type": "object")`, id, t)
	}
	if _, err := runtime.CompileSchema(id, schema); err != nil {
		return err
	}
	return nil
}

// explainInstantiate turns wazero's instantiation errors into advice.
func explainInstantiate(err error) error {
	msg := err.Error()
	if strings.Contains(msg, "is not exported in module") || strings.Contains(msg, "module[") && strings.Contains(msg, "not instantiated") {
		return fmt.Errorf("%w (the module imports a function toolhost does not provide; see docs/abi.md for the host functions available)", err)
	}
	if strings.Contains(msg, "_start") {
		return fmt.Errorf("%w (built as a command? build Go tools with -buildmode=c-shared)", err)
	}
	return err
}

// group returns the module compiled with limits l, compiling it on first
// use. Modules compile once per set of limits, usually once.
func (m *module) group(ctx context.Context, l limits) (*compiled, error) {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil, fmt.Errorf("module %s was unloaded", m.path)
	}
	g, ok := m.groups[l.key()]
	if !ok {
		g = &groupOnce{}
		m.groups[l.key()] = g
	}
	m.mu.Unlock()
	g.once.Do(func() {
		data, err := os.ReadFile(m.path)
		if err != nil {
			g.err = fmt.Errorf("read %s: %w", m.path, err)
			return
		}
		if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != m.sum {
			g.err = fmt.Errorf("%s changed on disk since it was loaded; reload the tools (a watching host does so by itself)", m.path)
			return
		}
		g.c, g.err = m.host.compile(ctx, m.name, data, l)
	})
	m.mu.Lock()
	closed := m.closed
	m.mu.Unlock()
	if closed && g.err == nil {
		// Unloaded while compiling: close's snapshot of the groups may
		// have missed this one.
		g.c.close(context.Background())
		return nil, fmt.Errorf("module %s was unloaded", m.path)
	}
	if g.err != nil {
		m.mu.Lock()
		if m.groups[l.key()] == g {
			delete(m.groups, l.key()) // let a later call retry
		}
		m.mu.Unlock()
	}
	return g.c, g.err
}

// close unloads the module; calls in flight finish first.
func (m *module) close(ctx context.Context) {
	m.mu.Lock()
	groups := m.groups
	m.groups, m.closed = map[string]*groupOnce{}, true
	m.mu.Unlock()
	for _, g := range groups {
		if g.c != nil {
			g.c.close(ctx)
		}
	}
}

// compile compiles a module with limits l. The wazero compilation cache on
// disk makes recompiling a known module cheap.
func (h *Engine) compile(ctx context.Context, name string, data []byte, l limits) (*compiled, error) {
	ctx, done, berr := h.begin(ctx)
	if berr != nil {
		return nil, fmt.Errorf("compile %s: %w", name, berr)
	}
	defer done()
	if h.compiling != nil {
		h.compiling()
	}
	rc := wazero.NewRuntimeConfig().WithCloseOnContextDone(true).WithMemoryLimitPages(l.MemoryPages)
	if h.cache != nil {
		rc = rc.WithCompilationCache(h.cache)
	}
	// Give the guest toolhost's guarded http_request instead of Extism's.
	data, _, err := redirectImport(data, hostfns.EnvNamespace, hostfns.NameHTTPRequest, hostfns.HTTPNamespace)
	if err != nil {
		return nil, fmt.Errorf("not a valid WebAssembly module: %w", err)
	}
	manifest := extism.Manifest{
		Wasm: []extism.Wasm{extism.WasmData{Data: data, Name: "main"}},
		Memory: &extism.ManifestMemory{
			MaxPages:             l.MemoryPages,
			MaxHttpResponseBytes: int64(l.OutputBytes),
			MaxVarBytes:          1 << 20,
		},
		Config: l.Config,
		// No AllowedPaths: compiled.get mounts them itself, confined by
		// os.Root (mounts.go); Extism's mounts follow links out.
		// No AllowedHosts: Extism's own http_request is unreachable (the
		// import is redirected) and would refuse everything anyway.
	}
	p, err := extism.NewCompiledPlugin(ctx, manifest, extism.PluginConfig{
		EnableWasi:    true,
		RuntimeConfig: rc,
	}, h.hostFunctions())
	if err != nil {
		return nil, fmt.Errorf("compile: %w", err)
	}
	return newCompiled(p, l, name, h.log), nil
}

// readMeta returns the cached description and schemas of a module.
func (h *Engine) readMeta(sum string) (moduleMeta, bool) {
	var meta moduleMeta
	if !h.readCache(sum+".json", &meta) || meta.ABI != hostfns.ABIVersion || len(meta.Tools) == 0 {
		return moduleMeta{}, false
	}
	return meta, true
}

// writeMeta caches a module's description and schemas.
func (h *Engine) writeMeta(sum string, meta moduleMeta) { h.writeCache(sum+".json", meta) }

// readCache decodes the JSON cache file name of the meta cache into v.
func (h *Engine) readCache(name string, v any) bool {
	if h.cacheDir == "" {
		return false
	}
	b, err := os.ReadFile(filepath.Join(h.cacheDir, "meta", name))
	return err == nil && json.Unmarshal(b, v) == nil
}

// writeCache stores v as the JSON cache file name, atomically (temporary
// file and rename) so a concurrent reader never sees half of it. Failing
// to is only slower next time.
func (h *Engine) writeCache(name string, v any) {
	if h.cacheDir == "" {
		return
	}
	dir := filepath.Join(h.cacheDir, "meta")
	b, _ := json.Marshal(v)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		h.log.Debug("wasm meta cache", "err", err)
		return
	}
	tmp, err := os.CreateTemp(dir, name+".*.tmp")
	if err != nil {
		h.log.Debug("wasm meta cache", "err", err)
		return
	}
	_, werr := tmp.Write(b)
	if cerr := tmp.Close(); werr != nil || cerr != nil || os.Rename(tmp.Name(), filepath.Join(dir, name)) != nil {
		os.Remove(tmp.Name())
	}
}

// toolMeta asks one tool export of an instance for its description and
// schema and checks both. A failed guest call marks the instance unhealthy;
// remedy says how to fix an invalid id.
func (m *module) toolMeta(ctx context.Context, c *compiled, in *instance, export, remedy string, healthy *bool) (toolMeta, error) {
	id := m.toolID(export)
	if !validID.MatchString(id) {
		return toolMeta{}, fmt.Errorf("tool id %q is not a valid tool name for model APIs (%s); %s", id, validID, remedy)
	}
	desc, err := m.host.callMeta(ctx, c, in, id, exportName(export, hostfns.ExportDescription))
	if err != nil {
		*healthy = false
		return toolMeta{}, err
	}
	schema, err := m.host.callMeta(ctx, c, in, id, exportName(export, hostfns.ExportSchema))
	if err != nil {
		*healthy = false
		return toolMeta{}, err
	}
	if err := checkSchema(id, schema); err != nil {
		return toolMeta{}, err
	}
	tm := toolMeta{Export: export, Description: strings.TrimSpace(string(desc)), Schema: json.RawMessage(schema)}
	traitsExport := exportName(export, hostfns.ExportTraits)
	if _, ok := in.p.Module().ExportedFunctions()[traitsExport]; ok {
		out, err := m.host.callMeta(ctx, c, in, id, traitsExport)
		if err != nil {
			*healthy = false
			return toolMeta{}, err
		}
		if tm.Traits, err = parseTraits(out); err != nil {
			return toolMeta{}, fmt.Errorf("%s of %s: %w", traitsExport, id, err)
		}
	}
	return tm, nil
}
