package python

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing/fstest"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
	"github.com/tetratelabs/wazero/sys"
	"github.com/toolhost/toolhost/hostfns"
)

//go:embed guest/*.py
var guestFiles embed.FS

// guestDir is where the toolhost module, the runner and the tool's source
// are mounted, read-only, in every instance.
const guestDir = "/toolhost"

// guestKey identifies the guest code, for the schema cache.
var guestKey = sync.OnceValue(func() string {
	h := sha256.New()
	h.Write([]byte(EngineVersion))
	ents, _ := fs.ReadDir(guestFiles, "guest")
	for _, e := range ents {
		b, _ := fs.ReadFile(guestFiles, "guest/"+e.Name())
		h.Write([]byte("\x00" + e.Name() + "\x00"))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))
})

// Runtime compiles python.wasm once and starts instances of it. Instances
// whose memory caps differ need runtimes of their own (wazero caps memory
// per runtime); they share one compilation cache, so each compiles
// nothing the first did not. It is safe for concurrent use.
type Runtime struct {
	engine []byte
	cache  wazero.CompilationCache

	mu     sync.Mutex
	rts    map[int]*memRuntime // by memory cap in MB
	warm   chan struct{}       // bounds background pool refills
	live   map[*instance]struct{}
	closed bool
	wg     sync.WaitGroup // one per live instance, until its module is closed
}

type memRuntime struct {
	once sync.Once
	rt   wazero.Runtime
	mod  wazero.CompiledModule
	err  error
}

// NewRuntime prepares engine (python.wasm, already verified); cacheDir
// holds wazero's compiled code ("" keeps it in memory only). Nothing is
// compiled until the first instance starts.
func NewRuntime(engine []byte, cacheDir string) *Runtime {
	var cc wazero.CompilationCache
	if cacheDir != "" {
		cc, _ = wazero.NewCompilationCacheWithDir(cacheDir)
	}
	if cc == nil {
		cc = wazero.NewCompilationCache()
	}
	return &Runtime{engine: engine, cache: cc, rts: map[int]*memRuntime{}, warm: make(chan struct{}, 1), live: map[*instance]struct{}{}}
}

// CompiledDir is where wazero keeps the engine's compiled code under a
// python cache folder ("" when there is none).
//
// The folder is named after the settings code is compiled with, because
// wazero's cache key is the module and CPU alone: machine code compiled
// without termination checks (WithCloseOnContextDone) would be taken as
// having them — an endless loop could not be stopped — and code compiled
// with DWARF enabled carries a source map that is read back 8 bytes per
// syscall (seconds for python.wasm). Only this package writes here.
func CompiledDir(cache string) string {
	if cache == "" {
		return ""
	}
	return filepath.Join(cache, "compiled", compiledSettings)
}

// compiledSettings names the wazero settings of every Runtime's compiled
// code (see forMemory); change it when they change.
const compiledSettings = "terminate-nodwarf"

// forMemory returns the runtime whose instances are capped at memMB.
func (r *Runtime) forMemory(ctx context.Context, memMB int) (*memRuntime, error) {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil, fmt.Errorf("%w: the Python runtime is closed", ErrEngine)
	}
	m, ok := r.rts[memMB]
	if !ok {
		m = &memRuntime{}
		r.rts[memMB] = m
	}
	r.mu.Unlock()
	m.once.Do(func() {
		// No DWARF: python.wasm carries its debug sections, and wazero
		// parses them on the first trap to print a stack trace — seconds of
		// work between a time limit firing and the instance ending.
		rc := wazero.NewRuntimeConfig().WithCloseOnContextDone(true).WithDebugInfoEnabled(false).
			WithMemoryLimitPages(uint32(memMB) * 16).WithCompilationCache(r.cache)
		m.rt = wazero.NewRuntimeWithConfig(context.WithoutCancel(ctx), rc)
		if _, m.err = wasi_snapshot_preview1.Instantiate(ctx, m.rt); m.err == nil {
			if m.mod, m.err = m.rt.CompileModule(ctx, r.engine); m.err != nil {
				m.err = fmt.Errorf("%w: compile: %w", ErrEngine, m.err)
			}
		}
	})
	return m, m.err
}

// closeWait bounds how long Close waits for stopped instances to end: a
// cancelled guest ends at its next loop header or host call.
const closeWait = 10 * time.Second

// Close stops every running instance, waits until each has let go of its
// module (or ctx ends), then releases every runtime. An instance still
// starting or running while its runtime is closed would race with the
// close inside wazero, so nothing starts once Close has begun.
func (r *Runtime) Close(ctx context.Context) error {
	r.mu.Lock()
	r.closed = true
	for in := range r.live {
		in.cancel(nil)
	}
	r.mu.Unlock()
	done := make(chan struct{})
	go func() { r.wg.Wait(); close(done) }()
	wait := time.NewTimer(closeWait)
	defer wait.Stop()
	select {
	case <-done:
	case <-ctx.Done():
	case <-wait.C:
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for k, m := range r.rts {
		m.once.Do(func() {}) // waits for a runtime being made
		if m.rt != nil {
			m.rt.Close(ctx)
		}
		delete(r.rts, k)
	}
	return r.cache.Close(ctx)
}

// Sandbox is what an instance may reach besides its own memory: the
// allowed_paths (host directory, "ro:" prefix for read-only → guest path)
// and the environment. Everything else is refused.
type Sandbox struct {
	Paths       map[string]string
	Env         map[string]string
	MemoryMaxMB int
}

// key tells apart sandboxes an idle instance may not be reused across.
func (s Sandbox) key() string {
	var b strings.Builder
	fmt.Fprintf(&b, "mem=%d", s.MemoryMaxMB)
	for _, k := range slices.Sorted(maps.Keys(s.Paths)) {
		fmt.Fprintf(&b, "\x00p%q=%q", k, s.Paths[k])
	}
	for _, k := range slices.Sorted(maps.Keys(s.Env)) {
		fmt.Fprintf(&b, "\x00e%q=%q", k, s.Env[k])
	}
	return b.String()
}

// check refuses a grant that would shadow the read-only /toolhost.
func (s Sandbox) check() error {
	for _, g := range s.Paths {
		if c := path.Clean("/" + g); c == "/" || c == guestDir || strings.HasPrefix(c, guestDir+"/") {
			return fmt.Errorf("allowed_paths may not mount %q: %s holds the toolhost module", g, guestDir)
		}
	}
	return nil
}

// src is a tool file as the guest sees it.
type src struct {
	path string // host path, for messages and tracebacks
	stem string // the file's name without .py
	code []byte
}

// start begins an instance running guest/_main.py in mode ("describe" or
// "call") on s. It returns at once; the instance's first message says
// whether the file loaded. loadTimeout bounds the time until it sends
// "ready" or ends.
func (r *Runtime) start(ctx context.Context, mode string, s src, sb Sandbox, loadTimeout time.Duration) (*instance, error) {
	return r.startArgs(ctx, []string{"python", "-I", "-S", guestDir + "/_main.py", mode, s.path, s.stem}, s, sb, loadTimeout)
}

// startArgs starts python.wasm with args (argv[0] first).
func (r *Runtime) startArgs(ctx context.Context, args []string, s src, sb Sandbox, loadTimeout time.Duration) (*instance, error) {
	if r == nil {
		return nil, fmt.Errorf("%w: no runtime", ErrEngine)
	}
	if err := sb.check(); err != nil {
		return nil, err
	}
	memMB := sb.MemoryMaxMB
	if memMB <= 0 {
		memMB = 256
	}
	mr, err := r.forMemory(ctx, memMB)
	if err != nil {
		return nil, err
	}
	mfs := fstest.MapFS{"tool.py": {Data: s.code, Mode: 0o444}}
	ents, _ := fs.ReadDir(guestFiles, "guest")
	for _, e := range ents {
		b, _ := fs.ReadFile(guestFiles, "guest/"+e.Name())
		mfs[e.Name()] = &fstest.MapFile{Data: b, Mode: 0o444}
	}
	fsc := wazero.NewFSConfig().WithFSMount(mfs, guestDir)
	// allowed_paths are mounted as a wasm module's are, with the same
	// rule for a read-only folder inside a writable one.
	fsc, mounts := hostfns.Mount(fsc, sb.Paths)
	in := newInstance(ctx, memMB)
	if err := r.track(in); err != nil {
		return nil, err
	}
	cfg := wazero.NewModuleConfig().WithName("").
		WithArgs(args...).
		WithStdin(in.stdin).WithStdout(in.stdout).WithStderr(in.stderr).
		WithFSConfig(fsc).WithRandSource(rand.Reader).WithStartFunctions()
	for _, k := range slices.Sorted(maps.Keys(sb.Env)) {
		cfg = cfg.WithEnv(k, sb.Env[k])
	}
	in.limit(loadTimeout, errLoadTimeout)
	mod, err := mr.rt.InstantiateModule(in.ctx, mr.mod, cfg)
	if err != nil {
		in.cancel(nil)
		mounts.Close()
		r.untrack(in)
		return nil, fmt.Errorf("start Python: %w", err)
	}
	in.mod, in.mounts = mod, mounts
	go func() {
		_, err := mod.ExportedFunction("_start").Call(in.ctx)
		in.finish(err)
		mod.Close(context.Background())
		mounts.Close()
		r.untrack(in)
	}()
	return in, nil
}

// track records in as live until untrack; it refuses once Close began.
func (r *Runtime) track(in *instance) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		in.cancel(nil)
		return fmt.Errorf("%w: the Python runtime is closed", ErrEngine)
	}
	r.live[in] = struct{}{}
	r.wg.Add(1)
	return nil
}

func (r *Runtime) untrack(in *instance) {
	r.mu.Lock()
	delete(r.live, in)
	r.mu.Unlock()
	r.wg.Done()
}

// isExit0 reports whether err is the guest's sys.exit(0).
func isExit0(err error) bool {
	var ee *sys.ExitError
	return errors.As(err, &ee) && ee.ExitCode() == 0
}

// memoryFull reports whether mod's memory reached the cap: a trap there
// is the memory limit, not a bug.
func memoryFull(mod api.Module, memMB int) bool {
	if mod == nil || mod.Memory() == nil {
		return false
	}
	return uint64(mod.Memory().Size())+(4<<20) >= uint64(memMB)<<20
}
