package wasm

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/toolhost/toolhost/runtime/config"
)

// Attacks on the stop flag's instrumentation (interrupt.go, loopcheck.go):
// modules built byte by byte to run past their time limit, to reach the
// flag, or to compute something else once instrumented.

// loopModule is a module with a memory, one import env.tick: () -> () and
// the given types (type 0 is () -> (), type 1 is (i32) -> (i32)) and
// functions, the first exported as "run", with the other sections given.
func loopModule(types [][]byte, funcs [][]byte, bodies [][]byte, extra ...[]byte) []byte {
	var fsec [][]byte
	for _, f := range funcs {
		fsec = append(fsec, f)
	}
	secs := [][]byte{
		wasmSection(1, wasmVec(types...)),
		wasmSection(2, wasmVec(cat(wasmName("env"), wasmName("tick"), []byte{0, 0}))),
		wasmSection(3, wasmVec(fsec...)),
		wasmSection(5, wasmVec([]byte{0, 1})),
		wasmSection(7, wasmVec(cat(wasmName("run"), []byte{0, 1}), cat(wasmName("memory"), []byte{2, 0}))),
	}
	secs = append(secs, extra...)
	secs = append(secs, wasmSection(10, wasmVec(bodies...)))
	return wasmModule(secs...)
}

// runStopped instantiates mod (instrumented) with the compiler, calls run
// with args, sets the stop flag after stopAfter and returns the call's
// error and how long after the flag was set it ended. It fails the test
// if the call has not ended within limit.
func runStopped(t *testing.T, mod []byte, stopAfter, limit time.Duration, args ...uint64) (error, time.Duration) {
	t.Helper()
	inst, _, err := instrumentLoops(mod)
	if err != nil {
		t.Fatalf("instrument: %v", err)
	}
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	t.Cleanup(func() { rt.Close(ctx) })
	if _, err := rt.NewHostModuleBuilder("env").NewFunctionBuilder().
		WithFunc(func(context.Context) {}).Export("tick").Instantiate(ctx); err != nil {
		t.Fatal(err)
	}
	m, err := rt.InstantiateWithConfig(ctx, inst, wazero.NewModuleConfig().WithName(""))
	if err != nil {
		t.Fatalf("instantiate: %v", err)
	}
	flag := m.ExportedGlobal(stopGlobal).(api.MutableGlobal)
	done := make(chan error, 1)
	go func() {
		_, err := m.ExportedFunction("run").Call(ctx, args...)
		done <- err
	}()
	select {
	case err := <-done:
		return err, 0
	case <-time.After(stopAfter):
	}
	flag.Set(1)
	set := time.Now()
	select {
	case err := <-done:
		return err, time.Since(set)
	case <-time.After(limit):
		t.Fatalf("the guest ran on %v after the stop flag was set", limit)
		return nil, 0
	}
}

// runBoth calls run(args) in the original and the instrumented module and
// returns both results (or errors, as strings).
func runBoth(t *testing.T, mod []byte, args ...uint64) (orig, inst string) {
	t.Helper()
	out, _, err := instrumentLoops(mod)
	if err != nil {
		t.Fatalf("instrument: %v", err)
	}
	var res [2]string
	for i, code := range [][]byte{mod, out} {
		ctx := context.Background()
		rt := wazero.NewRuntime(ctx)
		if _, err := rt.NewHostModuleBuilder("env").NewFunctionBuilder().
			WithFunc(func(context.Context) {}).Export("tick").Instantiate(ctx); err != nil {
			t.Fatal(err)
		}
		m, err := rt.InstantiateWithConfig(ctx, code, wazero.NewModuleConfig().WithName(""))
		if err != nil {
			t.Fatalf("instantiate (instrumented: %v): %v", i == 1, err)
		}
		r, err := m.ExportedFunction("run").Call(ctx, args...)
		res[i] = fmtResult(r, err)
		rt.Close(ctx)
	}
	return res[0], res[1]
}

func fmtResult(r []uint64, err error) string {
	if err != nil {
		return "error"
	}
	s := ""
	for _, v := range r {
		s += " " + string(leb(v))
	}
	return s
}

// The function types loopModule's modules use.
var (
	tVoid   = funcType(nil, nil)                   // 0
	tI32I32 = funcType([]byte{tI32}, []byte{tI32}) // 1
)

func TestAStartFunctionThatSpinsIsStoppedAtTheTimeLimit(t *testing.T) {
	t.Parallel()
	// A start function runs while the module is instantiated, before
	// any call, its timer or its instance's flag exist.
	spin := wasmFunc([]byte{0}, []byte{0x03, 0x40, 0x0c, 0x00, 0x0b})
	mod := wasmModule(
		wasmSection(1, wasmVec(tVoid)),
		wasmSection(3, wasmVec([]byte{0})),
		wasmSection(5, wasmVec([]byte{0, 1})),
		wasmSection(7, wasmVec(cat(wasmName("memory"), []byte{2, 0}))),
		wasmSection(8, []byte{0}),
		wasmSection(10, wasmVec(spin)),
	)
	h := newHost(t, spinConfig("spinstart"))
	l := limitsOf(config.WasmConfig{TimeoutMS: 200}, "", "")
	c, err := h.compile(context.Background(), "spinstart", mod, l)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.close(context.Background()) })
	done := make(chan error, 1)
	go func() {
		in, err := c.get(context.Background())
		if err == nil {
			c.release(in, false)
		}
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, ErrTimeout) {
			t.Fatalf("err = %v, want ErrTimeout", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the start function ran on for 10 s past its 200 ms limit")
	}
}
