package js

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
)

// Runtime compiles the engine once and instantiates VMs from it. One
// Runtime serves all tools with the same memory cap (wazero sets the cap
// per runtime); the compiled code is shared through the cache.
type Runtime struct {
	rt     wazero.Runtime
	mod    wazero.CompiledModule
	memMax uint32 // bytes QuickJS may allocate
}

// compileCaches are shared by every Runtime of the process with the same
// cache folder, so a second runtime does not compile the engine again.
var compileCaches = struct {
	sync.Mutex
	m map[string]wazero.CompilationCache
}{m: map[string]wazero.CompilationCache{}}

func cacheFor(dir string) wazero.CompilationCache {
	compileCaches.Lock()
	defer compileCaches.Unlock()
	if c, ok := compileCaches.m[dir]; ok {
		return c
	}
	var c wazero.CompilationCache
	if dir != "" {
		if fc, err := wazero.NewCompilationCacheWithDir(dir); err == nil {
			c = fc
		}
	}
	if c == nil {
		c = wazero.NewCompilationCache()
	}
	compileCaches.m[dir] = c
	return c
}

// NewRuntime compiles engine (quickjs.wasm, already verified) for VMs
// whose JS heap is capped at memMaxMB MiB. cacheDir holds wazero's
// compiled code ("" keeps it in memory only).
func NewRuntime(ctx context.Context, engine []byte, memMaxMB int, cacheDir string) (*Runtime, error) {
	if memMaxMB <= 0 {
		memMaxMB = 256
	}
	// The wasm memory cap is a backstop a little above QuickJS's own heap
	// limit, which is the one that turns a memory bomb into a catchable
	// "out of memory" instead of a trap.
	pages := uint32(memMaxMB+32) * 16
	rc := wazero.NewRuntimeConfig().WithCloseOnContextDone(true).WithMemoryLimitPages(pages).
		WithCompilationCache(cacheFor(cacheDir))
	rt := wazero.NewRuntimeWithConfig(ctx, rc)
	if _, err := wasi_snapshot_preview1.Instantiate(ctx, rt); err != nil {
		rt.Close(ctx)
		return nil, err
	}
	if err := instantiateEnv(ctx, rt); err != nil {
		rt.Close(ctx)
		return nil, err
	}
	mod, err := rt.CompileModule(ctx, engine)
	if err != nil {
		rt.Close(ctx)
		return nil, fmt.Errorf("%w: compile: %w", ErrEngine, err)
	}
	return &Runtime{rt: rt, mod: mod, memMax: uint32(memMaxMB) << 20}, nil
}

// Close releases the runtime and every VM made from it.
func (r *Runtime) Close(ctx context.Context) error { return r.rt.Close(ctx) }

// vm is one QuickJS instance. It is used by one goroutine at a time.
type vm struct {
	mod api.Module
	mem api.Memory
	sp  api.MutableGlobal
	fn  map[string]api.Function
}

// The qjs_* exports vm uses; dist/index.js of the pinned quickjs-wasi
// shows each one's contract.
var vmExports = []string{
	"_initialize", "qjs_init", "qjs_eval", "qjs_compile", "qjs_eval_bytecode",
	"qjs_execute_pending_job", "qjs_is_job_pending", "qjs_is_exception", "qjs_get_exception",
	"qjs_free_value", "qjs_get_string_len", "qjs_free_cstring", "qjs_new_string",
	"qjs_new_host_function", "qjs_get_global", "qjs_set_prop_string",
	"qjs_set_memory_limit", "qjs_set_interrupt_handler", "qjs_set_max_stack_size",
	"qjs_get_runtime_ptr", "qjs_get_context_ptr", "qjs_set_runtime_and_context",
	"wasm_malloc", "wasm_free",
}

// newVM instantiates the engine. With snap nil it initialises a fresh
// QuickJS runtime; otherwise it restores snap's memory into the instance.
func (r *Runtime) newVM(ctx context.Context, snap *snapshot) (*vm, error) {
	mc := wazero.NewModuleConfig().WithName("").WithStartFunctions().
		WithSysWalltime().WithSysNanotime().WithRandSource(rand.Reader).
		WithStdout(io.Discard).WithStderr(io.Discard)
	mod, err := r.rt.InstantiateModule(ctx, r.mod, mc)
	if err != nil {
		return nil, fmt.Errorf("instantiate the JavaScript engine: %w", err)
	}
	v := &vm{mod: mod, mem: mod.Memory(), fn: map[string]api.Function{}}
	for _, name := range vmExports {
		f := mod.ExportedFunction(name)
		if f == nil {
			mod.Close(ctx)
			return nil, fmt.Errorf("%w: the engine has no export %s", ErrEngine, name)
		}
		v.fn[name] = f
	}
	sp, ok := mod.ExportedGlobal("__stack_pointer").(api.MutableGlobal)
	if !ok {
		mod.Close(ctx)
		return nil, fmt.Errorf("%w: the engine exports no mutable __stack_pointer", ErrEngine)
	}
	v.sp = sp
	if snap != nil {
		if err := v.restore(ctx, snap); err != nil {
			mod.Close(ctx)
			return nil, err
		}
		return v, nil
	}
	if _, err := v.call(ctx, "_initialize"); err != nil {
		mod.Close(ctx)
		return nil, err
	}
	if rc, err := v.call(ctx, "qjs_init"); err != nil || rc != 0 {
		mod.Close(ctx)
		return nil, fmt.Errorf("%w: qjs_init failed (%d): %v", ErrEngine, int32(rc), err)
	}
	v.call(ctx, "qjs_set_memory_limit", uint64(r.memMax))
	v.call(ctx, "qjs_set_max_stack_size", 1<<20)
	v.call(ctx, "qjs_set_interrupt_handler", 1)
	if err := v.defineHost(ctx); err != nil {
		mod.Close(ctx)
		return nil, err
	}
	return v, nil
}

func (v *vm) close(ctx context.Context) { v.mod.Close(ctx) }

func (v *vm) call(ctx context.Context, name string, args ...uint64) (uint32, error) {
	res, err := v.fn[name].Call(ctx, args...)
	if err != nil {
		return 0, err
	}
	if len(res) == 0 {
		return 0, nil
	}
	return uint32(res[0]), nil
}

// snapshot is a VM's whole state: its linear memory and the few values
// outside it (the stack pointer and QuickJS's runtime and context).
type snapshot struct {
	mem         []byte
	sp          uint32
	rtPtr, cPtr uint32
}

func (v *vm) snapshot(ctx context.Context) (*snapshot, error) {
	rtPtr, err := v.call(ctx, "qjs_get_runtime_ptr")
	if err != nil {
		return nil, err
	}
	cPtr, err := v.call(ctx, "qjs_get_context_ptr")
	if err != nil {
		return nil, err
	}
	b, ok := v.mem.Read(0, v.mem.Size())
	if !ok {
		return nil, errors.New("snapshot: memory unreadable")
	}
	return &snapshot{mem: append([]byte(nil), b...), sp: uint32(v.sp.Get()), rtPtr: rtPtr, cPtr: cPtr}, nil
}

// restore puts snap back: memory beyond the snapshot (grown by a call) is
// zeroed, so nothing a call left behind survives into the next one.
func (v *vm) restore(ctx context.Context, s *snapshot) error {
	if size := v.mem.Size(); size < uint32(len(s.mem)) {
		if _, ok := v.mem.Grow((uint32(len(s.mem)) - size + 65535) / 65536); !ok {
			return errors.New("restore: cannot grow memory to the snapshot's size")
		}
	}
	all, _ := v.mem.Read(0, v.mem.Size())
	n := copy(all, s.mem)
	clear(all[n:])
	v.sp.Set(uint64(s.sp))
	_, err := v.call(ctx, "qjs_set_runtime_and_context", uint64(s.rtPtr), uint64(s.cPtr))
	return err
}

// writeString copies s into guest memory, NUL-terminated; the caller frees.
func (v *vm) writeString(ctx context.Context, s string) (uint32, error) {
	p, err := v.call(ctx, "wasm_malloc", uint64(len(s)+1))
	if err != nil {
		return 0, err
	}
	if p == 0 {
		return 0, errors.New("out of memory")
	}
	v.mem.WriteString(p, s)
	v.mem.WriteByte(p+uint32(len(s)), 0)
	return p, nil
}

// str converts the JSValue at val to a Go string (JS ToString).
func (v *vm) str(ctx context.Context, val uint32) (string, error) {
	lenp, err := v.call(ctx, "wasm_malloc", 4)
	if err != nil || lenp == 0 {
		return "", fmt.Errorf("read string: out of memory: %v", err)
	}
	defer v.call(ctx, "wasm_free", uint64(lenp))
	c, err := v.call(ctx, "qjs_get_string_len", uint64(val), uint64(lenp))
	if err != nil {
		return "", err
	}
	if c == 0 {
		return "", errors.New("read string: conversion failed")
	}
	defer v.call(ctx, "qjs_free_cstring", uint64(c))
	n, _ := v.mem.ReadUint32Le(lenp)
	b, ok := v.mem.Read(c, n)
	if !ok {
		return "", errors.New("read string: out of range")
	}
	return string(b), nil
}

// eval runs code as a global script and returns its completion value as a
// string. A JS exception comes back as *jsError.
func (v *vm) eval(ctx context.Context, code, file string) (string, error) {
	cp, err := v.writeString(ctx, code)
	if err != nil {
		return "", err
	}
	defer v.call(ctx, "wasm_free", uint64(cp))
	fp, err := v.writeString(ctx, file)
	if err != nil {
		return "", err
	}
	defer v.call(ctx, "wasm_free", uint64(fp))
	val, err := v.call(ctx, "qjs_eval", uint64(cp), uint64(len(code)), uint64(fp), 0)
	if err != nil {
		return "", err
	}
	return v.result(ctx, val)
}

// result turns a returned JSValue into a string or *jsError and frees it.
func (v *vm) result(ctx context.Context, val uint32) (string, error) {
	if val == 0 {
		return "", errors.New("the engine returned no value")
	}
	if exc, _ := v.call(ctx, "qjs_is_exception", uint64(val)); exc != 0 {
		v.call(ctx, "qjs_free_value", uint64(val))
		return "", v.exception(ctx)
	}
	defer v.call(ctx, "qjs_free_value", uint64(val))
	return v.str(ctx, val)
}

// jsError is an exception thrown by guest code, as its ToString.
type jsError struct{ msg string }

func (e *jsError) Error() string { return e.msg }

func (v *vm) exception(ctx context.Context) error {
	ex, err := v.call(ctx, "qjs_get_exception")
	if err != nil {
		return err
	}
	defer v.call(ctx, "qjs_free_value", uint64(ex))
	s, err := v.str(ctx, ex)
	if err != nil {
		return err
	}
	return &jsError{msg: s}
}

// compile turns a script into QuickJS bytecode, without running it.
func (v *vm) compile(ctx context.Context, code, file string) ([]byte, error) {
	cp, err := v.writeString(ctx, code)
	if err != nil {
		return nil, err
	}
	defer v.call(ctx, "wasm_free", uint64(cp))
	fp, err := v.writeString(ctx, file)
	if err != nil {
		return nil, err
	}
	defer v.call(ctx, "wasm_free", uint64(fp))
	lenp, err := v.call(ctx, "wasm_malloc", 4)
	if err != nil {
		return nil, err
	}
	defer v.call(ctx, "wasm_free", uint64(lenp))
	buf, err := v.call(ctx, "qjs_compile", uint64(cp), uint64(len(code)), uint64(fp), 0, 0, uint64(lenp))
	if err != nil {
		return nil, err
	}
	if buf == 0 {
		return nil, fmt.Errorf("compile %s: %w", file, v.exception(ctx))
	}
	defer v.call(ctx, "wasm_free", uint64(buf))
	n, _ := v.mem.ReadUint32Le(lenp)
	b, ok := v.mem.Read(buf, n)
	if !ok {
		return nil, errors.New("compile: bytecode out of range")
	}
	return append([]byte(nil), b...), nil
}

// runBytecode evaluates bytecode made by compile.
func (v *vm) runBytecode(ctx context.Context, bc []byte) error {
	p, err := v.call(ctx, "wasm_malloc", uint64(len(bc)))
	if err != nil || p == 0 {
		return fmt.Errorf("load bytecode: out of memory: %v", err)
	}
	v.mem.Write(p, bc)
	val, err := v.call(ctx, "qjs_eval_bytecode", uint64(p), uint64(len(bc)))
	v.call(ctx, "wasm_free", uint64(p))
	if err != nil {
		return err
	}
	_, err = v.result(ctx, val)
	return err
}

// runJobs runs pending promise jobs until none is left.
func (v *vm) runJobs(ctx context.Context) error {
	for {
		pending, err := v.call(ctx, "qjs_is_job_pending")
		if err != nil {
			return err
		}
		if pending == 0 {
			return nil
		}
		rc, err := v.call(ctx, "qjs_execute_pending_job")
		if err != nil {
			return err
		}
		if int32(rc) < 0 {
			return v.exception(ctx)
		}
	}
}

// hostFuncName is the one host function the guest sees (as __host until
// the prelude hides it).
const hostFuncName = "__host"

func (v *vm) defineHost(ctx context.Context) error {
	np, err := v.writeString(ctx, hostFuncName)
	if err != nil {
		return err
	}
	defer v.call(ctx, "wasm_free", uint64(np))
	fn, err := v.call(ctx, "qjs_new_host_function", uint64(np), uint64(len(hostFuncName)), 0)
	if err != nil {
		return err
	}
	defer v.call(ctx, "qjs_free_value", uint64(fn))
	g, err := v.call(ctx, "qjs_get_global")
	if err != nil {
		return err
	}
	_, err = v.call(ctx, "qjs_set_prop_string", uint64(g), uint64(np), uint64(fn))
	return err
}

// sleep waits d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
