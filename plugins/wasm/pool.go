package wasm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	goruntime "runtime"
	"strings"
	"sync"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/sys"
)

// compiled is a module compiled with one set of limits, in a wazero
// runtime of its own (the memory limit is per runtime), and its pool of
// instances. An instance is not safe for concurrent use, so every call
// takes an instance of its own and gives it back when done; instances are
// reused, because instantiating (and running a Go guest's runtime
// initialisation) costs far more than a call.
type compiled struct {
	rt     wazero.Runtime
	mod    wazero.CompiledModule
	limits limits
	mounts mounts // limits.AllowedPaths, shared by the instances
	module string
	log    *slog.Logger
	// interruptible: the module carries the stop flag (interrupt.go);
	// otherwise it was compiled with wazero's own termination checks.
	interruptible bool

	mu      sync.Mutex
	idle    []*instance
	active  int  // instances handed out and not yet released
	closed  bool // unloaded: close the runtime once active reaches 0
	maxIdle int
}

// instance is one pooled instance: the guest module, its Extism kernel,
// the exports already looked up, the buffer its guest's stderr goes to
// (the last lines explain a trap: a Go guest prints its panic) and the
// flag that stops it.
type instance struct {
	mod    api.Module
	k      *kernel
	fns    map[string]api.Function
	stack  []uint64
	stderr *stderrBuffer
	stop   api.MutableGlobal // nil unless the module is interruptible
	ready  bool              // the guest's runtime is initialised

	stopMu  sync.Mutex
	stopped bool
}

func newCompiled(rt wazero.Runtime, mod wazero.CompiledModule, interruptible bool, l limits, module string, log *slog.Logger) *compiled {
	return &compiled{rt: rt, mod: mod, interruptible: interruptible, limits: l, mounts: newMounts(l.AllowedPaths), module: module, log: log, maxIdle: max(4, 2*goruntime.GOMAXPROCS(0))}
}

// get returns an idle instance or makes a new one.
func (c *compiled) get(ctx context.Context) (*instance, error) {
	c.mounts.refresh() // a granted directory replaced since the last call
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, fmt.Errorf("module %s was unloaded", c.module)
	}
	c.active++
	if n := len(c.idle); n > 0 {
		in := c.idle[n-1]
		c.idle = c.idle[:n-1]
		c.mu.Unlock()
		return in, nil
	}
	c.mu.Unlock()
	stderr := &stderrBuffer{max: 2048}
	// No start functions: the guest's runtime is initialised by its first
	// call, under that call's time limit (instance.call).
	mc := wazero.NewModuleConfig().WithName("").WithStderr(stderr).WithStartFunctions()
	if c.mounts.cfg != nil {
		mc = mc.WithFSConfig(c.mounts.cfg)
	}
	for _, kv := range c.limits.Env {
		k, v, _ := strings.Cut(kv, "=")
		mc = mc.WithEnv(k, v)
	}
	// A start function runs here: under the time limit, which stops it
	// in a module compiled with wazero's checks (instrumentLoops refuses
	// start functions).
	ictx, cancel := context.WithTimeoutCause(ctx, c.limits.Timeout, ErrTimeout)
	mod, err := c.rt.InstantiateModule(ictx, c.mod, mc)
	timedOut := errors.Is(context.Cause(ictx), ErrTimeout)
	cancel()
	if err != nil {
		c.release(nil, false)
		if timedOut {
			return nil, fmt.Errorf("%w: instantiate %s: its start function ran for more than %s: %w", ErrTimeout, c.module, c.limits.Timeout, err)
		}
		return nil, fmt.Errorf("instantiate %s: %w", c.module, err)
	}
	in := &instance{mod: mod, k: newKernel(uint64(c.limits.MemoryPages)*65536, c.limits.Config), fns: map[string]api.Function{}, stack: make([]uint64, 1), stderr: stderr}
	if c.interruptible {
		g, ok := mod.ExportedGlobal(stopGlobal).(api.MutableGlobal)
		if !ok {
			mod.Close(context.Background())
			c.release(nil, false)
			return nil, fmt.Errorf("instantiate %s: the stop flag is missing", c.module)
		}
		in.stop = g
	}
	return in, nil
}

// release gives an instance back. A healthy one returns to the pool;
// one that saw a trap, a timeout or a host-function failure is closed,
// because its memory and its guest runtime's state are unknown. The last
// release after close closes the compiled module, so calls in flight on a
// replaced module finish on the old version.
func (c *compiled) release(in *instance, healthy bool) {
	c.mu.Lock()
	c.active--
	keep := in != nil && healthy && !c.closed && len(c.idle) < c.maxIdle
	if keep {
		in.stderr.Reset()
		c.idle = append(c.idle, in)
	}
	last := c.closed && c.active == 0
	c.mu.Unlock()
	if in != nil && !keep {
		in.mod.Close(context.Background())
	}
	if last {
		c.rt.Close(context.Background())
		c.mounts.close()
	}
}

// close unloads the module: idle instances close now, the compiled module
// when the last call in flight releases its instance.
func (c *compiled) close(ctx context.Context) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	idle := c.idle
	c.idle, c.closed = nil, true
	last := c.active == 0
	c.mu.Unlock()
	for _, in := range idle {
		in.mod.Close(ctx)
	}
	if last {
		c.rt.Close(ctx)
		c.mounts.close()
	}
}

// exports returns the guest's exported functions.
func (in *instance) exports() map[string]api.FunctionDefinition {
	return in.mod.ExportedFunctionDefinitions()
}

// fn returns the export name, looked up once per instance.
func (in *instance) fn(name string) api.Function {
	f, ok := in.fns[name]
	if !ok {
		f = in.mod.ExportedFunction(name)
		in.fns[name] = f
	}
	return f
}

// interrupt makes the guest trap at its next flush (interrupt.go). It is called
// from the call's timer or context, on another goroutine.
func (in *instance) interrupt() {
	in.stopMu.Lock()
	defer in.stopMu.Unlock()
	in.stopped = true
	if in.stop != nil {
		in.stop.Set(1)
	}
}

// wasInterrupted reports whether interrupt ran.
func (in *instance) wasInterrupted() bool {
	in.stopMu.Lock()
	defer in.stopMu.Unlock()
	return in.stopped
}

// errNoExport is returned for a call of an export the module lacks.
var errNoExport = errors.New("no such export")

// call runs export with input, as Extism's Plugin.Call does: input in the
// kernel, the guest's runtime initialised on the first call, the export
// called, and the output or the guest's error (error_set) read back. err
// is a trap or an exit; guestErr is the guest's own error message.
func (in *instance) call(ctx context.Context, export string, input []byte) (rc uint32, out []byte, guestErr string, err error) {
	f := in.fn(export)
	if f == nil {
		return 0, nil, "", fmt.Errorf("%w %s", errNoExport, export)
	}
	def := f.Definition()
	if len(def.ParamTypes()) != 0 || len(def.ResultTypes()) > 1 {
		return 0, nil, "", fmt.Errorf("export %s has the signature %v → %v; a tool export takes nothing and returns at most an i32", export, def.ParamTypes(), def.ResultTypes())
	}
	if err := in.k.setInput(input); err != nil {
		return 0, nil, "", err
	}
	ctx = context.WithValue(ctx, kernelKey{}, in.k)
	if !in.ready {
		if err := in.initRuntime(ctx); err != nil {
			return 0, nil, "", fmt.Errorf("initialise the guest's runtime: %w", err)
		}
		in.ready = true
		if err := in.k.setInput(input); err != nil {
			return 0, nil, "", err
		}
	}
	in.stack[0] = 0
	err = f.CallWithStack(ctx, in.stack)
	var exit *sys.ExitError
	if errors.As(err, &exit) {
		// A WASI exit: code 0 is a normal return.
		rc, err = exit.ExitCode(), nil
		if rc != 0 {
			return rc, nil, "", fmt.Errorf("exited with code %d", rc)
		}
	} else if len(def.ResultTypes()) == 1 {
		rc = uint32(in.stack[0])
	}
	if err != nil {
		return rc, nil, "", err
	}
	if msg := in.k.errorMessage(); msg != "" {
		return rc, nil, msg, nil
	}
	out, err = in.k.outputBytes()
	return rc, out, "", err
}

// initRuntime initialises the guest's language runtime as Extism does: a
// Haskell module's hs_init (after _initialize), a WASI reactor's
// _initialize, or a command's __wasm_call_ctors.
func (in *instance) initRuntime(ctx context.Context) error {
	call := func(name string, params ...uint64) error {
		f := in.mod.ExportedFunction(name)
		if f == nil {
			return nil
		}
		if len(f.Definition().ParamTypes()) != len(params) {
			return nil
		}
		_, err := f.Call(ctx, params...)
		return err
	}
	if in.mod.ExportedFunction("hs_init") != nil {
		if err := call("_initialize"); err != nil {
			return err
		}
		return call("hs_init", 0, 0)
	}
	if in.mod.ExportedFunction("_initialize") != nil {
		return call("_initialize")
	}
	return call("__wasm_call_ctors")
}

// stderrBuffer keeps the first and the last max bytes a guest writes to
// stderr: the head says what went wrong ("panic: …", "fatal error: out of
// memory"), the tail is where a long goroutine dump ends.
type stderrBuffer struct {
	mu   sync.Mutex
	max  int
	head []byte
	tail bytes.Buffer
}

func (t *stderrBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(p)
	if room := t.max - len(t.head); room > 0 {
		k := min(room, len(p))
		t.head = append(t.head, p[:k]...)
		p = p[k:]
	}
	t.tail.Write(p)
	if extra := t.tail.Len() - t.max; extra > 0 {
		t.tail.Next(extra)
	}
	return n, nil
}

// Head returns the first bytes written, trimmed.
func (t *stderrBuffer) Head() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.head))
}

// Contains reports whether s appears in what was kept.
func (t *stderrBuffer) Contains(s string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return bytes.Contains(t.head, []byte(s)) || bytes.Contains(t.tail.Bytes(), []byte(s))
}

func (t *stderrBuffer) Reset() {
	t.mu.Lock()
	t.head = t.head[:0]
	t.tail.Reset()
	t.mu.Unlock()
}
