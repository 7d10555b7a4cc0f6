package wasm

import (
	"context"
	"errors"
	"sort"
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
// functions, the first exported as "run", with the other sections given
// (each put in its place).
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
	sort.SliceStable(secs, func(i, j int) bool { return sectionRank[secs[i][0]] < sectionRank[secs[j][0]] })
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

// fillAll is memory.fill(0, 0, 128 MiB): one instruction, tens of
// milliseconds of native code.
var fillAll = cat(i32Const(0), i32Const(0), i32Const(128<<20), []byte{0xfc, 11, 0})

// grow128 grows the memory to 128 MiB and drops the result.
var grow128 = cat(i32Const(2047), []byte{0x40, 0, 0x1a})

func TestAGuestWhoseStepsAreExpensiveIsStoppedSoonAfterTheFlag(t *testing.T) {
	t.Parallel()
	var straight []byte
	for range 5000 {
		straight = append(straight, fillAll...)
	}
	tests := []struct {
		name string
		run  []byte
	}{
		// 1024 iterations between two flushes: 1024 fills of 128 MiB.
		{"a loop filling the whole memory at each iteration", cat(grow128, []byte{0x03, 0x40}, fillAll, []byte{0x0c, 0, 0x0b})},
		// No loop and no call: the function is never counted.
		{"a function of thousands of fills and no loop", cat(grow128, straight)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			mod := loopModule([][]byte{tVoid}, [][]byte{{0}}, [][]byte{wasmFunc([]byte{0}, tt.run)})
			err, after := runStopped(t, mod, 100*time.Millisecond, 5*time.Second)
			if err == nil {
				t.Fatal("the guest returned")
			}
			if after > time.Second {
				t.Errorf("the guest ran %v after the flag was set", after)
			}
		})
	}
}

// tPair is (i32 i32) -> (i32 i32), type 2 of the guests below: a loop's
// parameters and results.
var tPair = funcType([]byte{tI32, tI32}, []byte{tI32, tI32})

// counted are guests whose run(n) loops about n times, each a shape the
// loop analysis must see repeat; want is run(n) (0 when not checked).
var counted = []struct {
	name   string
	locals []byte
	code   []byte
	want   func(n uint64) uint64
}{
	{"a loop repeated only by a br_table from two blocks inside it", wasmVec([]byte{1, tI32}), cat(
		[]byte{0x02, 0x40, 0x03, 0x40},                                           // block $out loop $L
		[]byte{0x02, 0x40, 0x20, 0, 0x45, 0x0e, 1, 0, 2, 0x0b},                   // block: br_table (n == 0) $a $out
		[]byte{0x20, 1, 0x20, 0, 0x6a, 0x21, 1, 0x20, 0, 0x41, 1, 0x6b, 0x21, 0}, // acc += n; n--
		[]byte{0x02, 0x40, 0x02, 0x40, 0x41, 0, 0x0e, 0, 2, 0x0b, 0x0b},          // block block br_table $L
		[]byte{0x0b, 0x0b, 0x20, 1}), func(n uint64) uint64 { return n * (n + 1) / 2 & 0xffffffff }},
	{"a loop inside an if's else", wasmVec([]byte{1, tI32}), cat(
		[]byte{0x20, 0, 0x45, 0x04, 0x40, 0x05},                                           // if (n == 0) else
		[]byte{0x03, 0x40, 0x20, 1, 0x41, 1, 0x6a, 0x22, 1, 0x20, 0, 0x49, 0x0d, 0, 0x0b}, // loop: i++ < n
		[]byte{0x0b, 0x20, 1}), func(n uint64) uint64 { return n }},
	{"a loop with parameters and results", wasmVec([]byte{2, tI32}), cat(
		[]byte{0x20, 0, 0x41, 0, 0x03, 2},                      // n, 0, loop (i32 i32) -> (i32 i32)
		[]byte{0x21, 2, 0x21, 1},                               // acc, n
		[]byte{0x20, 1, 0x41, 1, 0x6b, 0x20, 2, 0x20, 1, 0x6a}, // n-1, acc+n
		[]byte{0x20, 1, 0x41, 1, 0x47, 0x0d, 0, 0x0b, 0x6a}),   // br_if (n != 1) loop; end; add
		func(n uint64) uint64 { return n * (n + 1) / 2 & 0xffffffff }},
	{"a loop setting v128, funcref, externref and i64 locals, resumed through a function", wasmVec(
		[]byte{1, 0x7b}, []byte{1, 0x70}, []byte{1, 0x6f}, []byte{1, tI64}), cat(
		[]byte{0x03, 0x40},
		[]byte{0x20, 1, 0x41, 1, 0xfd, 0x11, 0xfd, 0xae, 0x01, 0x21, 1}, // v += splat(1)
		[]byte{0xd0, 0x70, 0x21, 2, 0x20, 3, 0x21, 3},                   // f = null; e = e
		[]byte{0x20, 4, 0x42, 3, 0x7c, 0x21, 4},                         // w += 3
		[]byte{0x20, 0, 0x41, 1, 0x6b, 0x22, 0, 0x0d, 0, 0x0b},          // br_if --n
		[]byte{0x20, 1, 0xfd, 0x1b, 0, 0x20, 4, 0xa7, 0x6a, 0x20, 2, 0xd1, 0x6a, 0x20, 3, 0xd1, 0x6a}),
		func(n uint64) uint64 { return (4*n + 2) & 0xffffffff }},
	{"a loop in a function of seventy locals (the plain check)", wasmVec([]byte{70, tI32}), cat(
		[]byte{0x03, 0x40, 0x20, 69, 0x41, 1, 0x6a, 0x21, 69},
		[]byte{0x20, 0, 0x41, 1, 0x6b, 0x22, 0, 0x0d, 0, 0x0b, 0x20, 69}), func(n uint64) uint64 { return n }},
	{"a loop calling a host function", wasmVec([]byte{1, tI32}), cat(
		[]byte{0x03, 0x40, 0x10, 0, 0x20, 1, 0x41, 1, 0x6a, 0x21, 1},
		[]byte{0x20, 0, 0x41, 1, 0x6b, 0x22, 0, 0x0d, 0, 0x0b, 0x20, 1}), func(n uint64) uint64 { return n }},
	{"a loop of bulk memory operations", wasmVec([]byte{1, tI32}), cat(
		[]byte{0x03, 0x40, 0x20, 1, 0x20, 1, 0x41, 2, 0xfc, 11, 0},                               // fill(i, i, 2)
		[]byte{0x41, 0x80, 0x20, 0x20, 1, 0x41, 1, 0xfc, 10, 0, 0},                               // copy(4096, i, 1)
		[]byte{0x20, 1, 0x41, 1, 0x6a, 0x22, 1, 0x20, 0, 0x49, 0x0d, 0, 0x0b},                    // i++ < n
		[]byte{0x41, 0x80, 0x20, 0x2d, 0, 0, 0x20, 1, 0x41, 0x80, 0x02, 0x70, 0x2d, 0, 0, 0x6a}), // mem[4096] + mem[i%256]
		nil},
}

func TestGuestsWhoseLoopsRepeatInEveryShapeComputeWhatTheOriginalsCompute(t *testing.T) {
	t.Parallel()
	for _, tt := range counted {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			mod := loopModule([][]byte{tVoid, tI32I32, tPair}, [][]byte{{1}}, [][]byte{wasmFunc(tt.locals, tt.code)})
			for _, n := range []uint64{1, 5000} {
				orig, inst := runBoth(t, mod, n)
				if orig != inst {
					t.Fatalf("run(%d): original %q, instrumented %q", n, orig, inst)
				}
				if tt.want != nil && orig != fmtResult([]uint64{tt.want(n)}, nil) {
					t.Fatalf("run(%d) = %q, want %d", n, orig, tt.want(n))
				}
			}
		})
	}
}

func TestGuestsWhoseLoopsRepeatInEveryShapeStopAtTheFlag(t *testing.T) {
	t.Parallel()
	for _, tt := range counted {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			mod := loopModule([][]byte{tVoid, tI32I32, tPair}, [][]byte{{1}}, [][]byte{wasmFunc(tt.locals, tt.code)})
			if err, _ := runStopped(t, mod, 50*time.Millisecond, 2*time.Second, 0xffffffff); err == nil {
				t.Fatal("the guest returned before the flag was set")
			}
		})
	}
}

func TestALoopWhoseIterationsRunMuchCodeIsStoppedWithinAnIterationOrTwo(t *testing.T) {
	t.Parallel()
	// 100 000 dependent multiplications, a megabyte of code: about
	// 0.7 ms an iteration, 0.7 s for 1024 iterations.
	var straight []byte
	for range 100_000 {
		straight = append(straight, 0x20, 1, 0x20, 1, 0x6c, 0x41, 7, 0x73, 0x21, 1)
	}
	loop := func(body []byte) []byte {
		return cat([]byte{0x03, 0x40}, body, []byte{0x20, 0, 0x41, 1, 0x6b, 0x22, 0, 0x0d, 0, 0x0b, 0x20, 1})
	}
	locals := wasmVec([]byte{1, tI32})
	tests := []struct {
		name   string
		bodies [][]byte
		funcs  [][]byte
	}{
		{"a loop of a megabyte of straight code", [][]byte{wasmFunc(locals, loop(straight))}, [][]byte{{1}}},
		{"a loop calling a function of a megabyte of straight code", [][]byte{
			wasmFunc(locals, loop(cat([]byte{0x20, 1}, []byte{0x10, 2, 0x21, 1}))),
			wasmFunc(locals, []byte{0x20, 0, 0x21, 1}, straight, []byte{0x20, 1}),
		}, [][]byte{{1}, {1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			mod := loopModule([][]byte{tVoid, tI32I32}, tt.funcs, tt.bodies)
			err, after := runStopped(t, mod, 100*time.Millisecond, 10*time.Second, 0xffffffff)
			if err == nil {
				t.Fatal("the guest returned")
			}
			if after > 250*time.Millisecond {
				t.Errorf("the guest ran %v after the flag was set", after)
			}
		})
	}
}

func TestRecursionWithoutALoopStopsAtTheFlag(t *testing.T) {
	t.Parallel()
	// f(n) = n == 0 ? 0 : f(n-1) + f(n-1) + 1: 2^n calls and no loop.
	twice := func(callF []byte) []byte {
		return cat([]byte{0x20, 0, 0x45, 0x04, tI32, 0x41, 0, 0x05}, // if n == 0 then 0 else
			[]byte{0x20, 0, 0x41, 1, 0x6b}, callF, []byte{0x20, 0, 0x41, 1, 0x6b}, callF,
			[]byte{0x6a, 0x41, 1, 0x6a, 0x0b})
	}
	table := wasmSection(4, wasmVec([]byte{0x70, 0, 1}))
	elems := wasmSection(9, wasmVec(cat([]byte{0}, i32Const(0), []byte{0x0b}, wasmVec([]byte{1}))))
	tests := []struct {
		name  string
		body  []byte
		extra [][]byte
	}{
		{"direct", twice([]byte{0x10, 1}), nil},
		{"through call_indirect", twice(cat(i32Const(0), []byte{0x11, 1, 0})), [][]byte{table, elems}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			mod := loopModule([][]byte{tVoid, tI32I32}, [][]byte{{1}}, [][]byte{wasmFunc([]byte{0}, tt.body)}, tt.extra...)
			if orig, inst := runBoth(t, mod, 12); orig != inst || orig != fmtResult([]uint64{1<<12 - 1}, nil) {
				t.Fatalf("f(12): original %q, instrumented %q, want %d", orig, inst, 1<<12-1)
			}
			if err, _ := runStopped(t, mod, 50*time.Millisecond, 2*time.Second, 60); err == nil {
				t.Fatal("the guest returned")
			}
		})
	}
}

func TestAModuleTheChecksWouldMakeManyTimesLargerFallsBack(t *testing.T) {
	t.Parallel()
	// 20 000 nested loops, the innermost setting 63 locals: each loop
	// passes them all through its resume, 270 bytes for 7 of its own.
	const n = 20_000
	code := []byte{}
	for range n {
		code = append(code, 0x03, 0x40)
	}
	for i := range 63 {
		code = append(code, 0x41, 0, 0x21, byte(i))
	}
	for range n {
		code = append(code, 0x41, 0, 0x0d, 0, 0x0b)
	}
	mod := loopModule([][]byte{tVoid, tI32I32}, [][]byte{{1}}, [][]byte{wasmFunc(wasmVec([]byte{63, tI32}), code, []byte{0x20, 0})})
	out, _, err := instrumentLoops(mod)
	if err == nil {
		t.Fatalf("instrumented: %d bytes from %d", len(out), len(mod))
	}
}

func TestARecursionThatLoopsAtEveryLevelOnTheWayDownStopsAtTheFlag(t *testing.T) {
	t.Parallel()
	// f(n): a loop of 1000 iterations (under a flush's 1024), then
	// f(n-1): each frame counts but never returns, and wazero's stack
	// holds millions of frames.
	body := cat([]byte{0x41, 0x00, 0x21, 1}, // i = 0
		[]byte{0x03, 0x40, 0x20, 1, 0x41, 1, 0x6a, 0x22, 1, 0x41, 0xe8, 0x07, 0x49, 0x0d, 0, 0x0b}, // loop: ++i < 1000
		[]byte{0x20, 0, 0x41, 1, 0x6b, 0x10, 1})                                                    // f(n-1)
	mod := loopModule([][]byte{tVoid, tI32I32}, [][]byte{{1}}, [][]byte{wasmFunc(wasmVec([]byte{1, tI32}), body)})
	err, after := runStopped(t, mod, 50*time.Millisecond, 30*time.Second, 0x7fffffff)
	if err == nil {
		t.Fatal("the guest returned")
	}
	if after > time.Second {
		t.Errorf("the guest ran %v after the flag was set (%v)", after, err)
	}
}
