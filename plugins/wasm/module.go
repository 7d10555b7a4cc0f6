package wasm

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"

	"github.com/toolhost/toolhost/hostfns"
	"github.com/toolhost/toolhost/internal/observe/progress"
)

// validID is what model APIs accept as a tool name.
var validID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`) })

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
	// ready is c once compiled without error, readable without the once
	// (Pools, while a compile may be running).
	ready atomic.Pointer[compiled]
}

func (g *groupOnce) compiled() *compiled { return g.ready.Load() }

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
	// A module built by `toolhost tool build` lists its tools in a custom
	// section (toolsection.go): read it instead of compiling.
	meta, ok := h.metaFromSection(m, data)
	if !ok {
		// Describing runs the module's code: only once the bytes are
		// what a person trusted, where the caller asks (a watching
		// host's rescan, source.go).
		if admit, gated := ctx.Value(runGate{}).(func(path, sum string) bool); gated && !admit(path, m.sum) {
			return nil, errNotTrustedYet
		}
		if meta, err = m.inspect(ctx, data); err != nil {
			return nil, err
		}
	}
	m.meta = meta
	h.writeMeta(m.sum, meta)
	return m, nil
}

// runGate is the context key of a check that a module's bytes may run
// (path and hex SHA-256 in, whether they may out), asked before its code
// runs to describe it.
type runGate struct{}

// errNotTrustedYet is a module held back by the run gate.
var errNotTrustedYet = errors.New("held back: this module is not what a person trusted in this project, so none of its code runs; it loads once a person trusts the project again (toolhost trust)")

// setMeta adopts cached tool descriptions, checking the ids they make
// with this file's name.
func (m *module) setMeta(meta moduleMeta) error {
	for _, tm := range meta.Tools {
		if id := m.toolID(tm.Export); !validID().MatchString(id) {
			return fmt.Errorf("tool id %q is not a valid tool name for model APIs (%s); rename the file", id, validID())
		}
	}
	m.meta = meta
	return nil
}

// checkIDs refuses a file name that cannot prefix valid tool ids. Named
// tools' suffixes are checked when the exports are read.
func checkIDs(name string) error {
	if !validID().MatchString(name) {
		return fmt.Errorf("tool id %q is not a valid tool name for model APIs (%s); rename the file", name, validID())
	}
	return nil
}

// inspect compiles the module with default limits, finds its tools from
// its exports, and calls each tool's description and schema. The compiled
// module is kept for the first call.
func (m *module) inspect(ctx context.Context, data []byte) (moduleMeta, error) {
	meta := moduleMeta{ABI: hostfns.ABIVersion}
	err := m.inspectWith(ctx, data, func(c *compiled, in *instance, healthy *bool) error {
		exports, err := toolExports(in.exports())
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
	l := resolveLimits(nil, m.name, m, "")
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
	g.ready.Store(c)
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
		if g.err == nil {
			g.ready.Store(g.c)
		}
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

// compile compiles a module with limits l, in a wazero runtime of its own
// holding WASI, the Extism kernel and toolhost's host functions
// (kernel.go). The wazero compilation cache on disk makes recompiling a
// known module cheap.
//
// The module is compiled with the stop flag of interrupt.go, so a call can
// be stopped for the price of a counter in a register at each loop
// iteration;
// a module the instrumenter cannot read is compiled with wazero's own
// termination checks instead, and a marker section, so that the two
// compiled forms never share an entry of the compilation cache (whose key
// is the module's bytes alone).
func (h *Engine) compile(ctx context.Context, name string, data []byte, l limits) (_ *compiled, err error) {
	ctx, done, berr := h.begin(ctx)
	if berr != nil {
		return nil, fmt.Errorf("compile %s: %w", name, berr)
	}
	defer done()
	if h.compiling != nil {
		h.compiling()
	}
	// Compiling a Go-built module takes seconds the first time; from
	// wazero's cache it takes milliseconds and is not worth a line.
	task := progress.StartSlow(ctx, "compiling "+name)
	defer func() { task.Done("compiled "+name, err) }()
	code, ierr := instrumentOnce(data)
	interruptible := ierr == nil
	if !interruptible {
		if len(data) < 8 || !bytes.Equal(data[:4], wasmMagic) {
			return nil, errors.New("not a WebAssembly module (no \\0asm header)")
		}
		h.log.Debug("wasm module compiled with wazero's termination checks", "module", name, "reason", ierr)
		code = withTerminationMarker(data)
	}
	rc := wazero.NewRuntimeConfig().WithCloseOnContextDone(!interruptible).WithMemoryLimitPages(l.MemoryPages)
	if h.cache != nil {
		rc = rc.WithCompilationCache(h.cache)
	}
	rt := wazero.NewRuntimeWithConfig(ctx, rc)
	if _, err := wasi_snapshot_preview1.Instantiate(ctx, rt); err != nil {
		rt.Close(context.Background())
		return nil, fmt.Errorf("compile: wasi: %w", err)
	}
	if err := instantiateHostModules(ctx, rt); err != nil {
		rt.Close(context.Background())
		return nil, fmt.Errorf("compile: %w", err)
	}
	mod, err := compileModule(ctx, rt, code)
	if err != nil {
		rt.Close(context.Background())
		if !interruptible {
			return nil, fmt.Errorf("not a valid WebAssembly module: %w", err)
		}
		return nil, fmt.Errorf("compile: %w", err)
	}
	return newCompiled(rt, mod, interruptible, l, name, h.log), nil
}

// compileModule is rt.CompileModule with a panic inside wazero turned
// into an error. wazero v1.12.0's validator indexes out of range on some
// malformed modules (FuzzInstrumentLoops found one), and a file dropped
// into a tool folder must cost a load error, never the process.
func compileModule(ctx context.Context, rt wazero.Runtime, code []byte) (mod wazero.CompiledModule, err error) {
	defer func() {
		if v := recover(); v != nil {
			mod, err = nil, fmt.Errorf("wazero failed on it (%v): the file is not a valid WebAssembly module", v)
		}
	}()
	return rt.CompileModule(ctx, code)
}

// withTerminationMarker returns wasm with a custom section appended, so
// its compiled form (with wazero's termination checks) has a cache key of
// its own.
func withTerminationMarker(wasm []byte) []byte {
	const name = "toolhost:terminating"
	// One byte of content: wazero reads an empty custom section at the
	// end of a module as truncated.
	payload := append(append(leb(uint64(len(name))), name...), 1)
	out := append([]byte(nil), wasm...)
	out = append(out, secCustom)
	out = append(out, leb(uint64(len(payload)))...)
	return append(out, payload...)
}
