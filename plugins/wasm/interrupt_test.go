package wasm

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	goruntime "runtime"
	"strings"
	"testing"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"

	"github.com/toolhost/toolhost/hostfns"
	"github.com/toolhost/toolhost/runtime/config"
)

// spinConfig gives every tool a short time limit.
func spinConfig(tools ...string) *config.Config {
	cfg := &config.Config{Wasm: map[string]config.WasmConfig{}}
	for _, t := range tools {
		cfg.Wasm[t] = config.WasmConfig{TimeoutMS: 200}
	}
	return cfg
}

func TestASpinningGuestIsStoppedAtItsTimeLimitWhateverItsModuleLooksLike(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		id            string
		module        func(t *testing.T) string
		interruptible bool   // compiled with the stop flag, not wazero's checks
		args          string // "" for {}
	}{
		{"a tiny module with nested loops carries the stop flag", "spintiny",
			func(t *testing.T) string { return writeTiny(t, "spintiny", tiny{spin: true}) }, true, ""},
		{"a Go guest spinning in its tool function carries the stop flag", "spin",
			func(t *testing.T) string { return guest(t, "spin") }, true, ""},
		{"a tiny module recursing without a loop (a naive Fibonacci) carries the stop flag", "spinrec",
			func(t *testing.T) string { return writeTiny(t, "spinrec", tiny{recurse: 90}) }, true, ""},
		{"a C guest's hot loop, counted in a register, carries the stop flag", "hotloop",
			func(t *testing.T) string { return cWasm(t, "testdata/cguests/hotloop") }, true, `{"rounds": 1000000000}`},
		{"a module the instrumenter refuses falls back to wazero's checks", "spinclash",
			func(t *testing.T) string { return writeTiny(t, "spinclash", tiny{spin: true, clash: true}) }, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHost(t, spinConfig(tt.id))
			tools := discover(t, h, configDir(t, map[string]string{tt.id + ".wasm": tt.module(t)}))
			args := tt.args
			if args == "" {
				args = `{}`
			}
			_, err := call(t, tools[tt.id], args, nil)
			if !errors.Is(err, ErrTimeout) {
				t.Fatalf("err = %v, want ErrTimeout", err)
			}
			m := moduleOf(h, tt.id)
			c, err := m.group(context.Background(), m.limitsFor(h.config(), tt.id, ""))
			if err != nil {
				t.Fatal(err)
			}
			if c.interruptible != tt.interruptible {
				t.Errorf("interruptible = %v, want %v", c.interruptible, tt.interruptible)
			}
			// The pool holds no instance that saw the interrupt: the next
			// call times out again rather than trapping at once.
			if _, err := call(t, tools[tt.id], args, nil); !errors.Is(err, ErrTimeout) {
				t.Fatalf("second call: err = %v, want ErrTimeout", err)
			}
		})
	}
}

// moduleOf returns the loaded module named name.
func moduleOf(h *Engine, name string) *module {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, m := range h.modules {
		if m.name == name {
			return m
		}
	}
	return nil
}

// withTestCall attaches a session-less hostfns.Call using in's kernel.
func withTestCall(ctx context.Context, in *instance) context.Context {
	return hostfns.WithCall(ctx, &hostfns.Call{Tool: "t", Memory: in.k})
}

func TestInstrumentedModulesComputeWhatTheOriginalsCompute(t *testing.T) {
	t.Parallel()
	file := func(path func(t testing.TB) string) func(t *testing.T) []byte {
		return func(t *testing.T) []byte {
			b, err := os.ReadFile(path(t))
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
	}
	for _, tt := range []struct {
		name string
		data func(t *testing.T) []byte
		args string
	}{
		{"tiny", func(t *testing.T) []byte { return tinyGuest(tiny{output: "tiny output"}) }, `{}`},
		{"a tiny module with a recursive function", func(t *testing.T) []byte { return tinyGuest(tiny{recurse: 25}) }, `{}`},
		{"go echo", file(func(t testing.TB) string { return guest(t, "echo") }), `{"text":"héllo","n":7}`},
		{"go jsonwork", file(func(t testing.TB) string { return guest(t, "jsonwork") }),
			`{"items":[{"name":"a","tags":["X","y"],"score":2.5,"count":3},{"name":"bbb","tags":["x"],"score":7,"count":1,"attrs":{"k":"v"}}]}`},
		// Loops of millions of iterations: every loop flushes and resumes
		// thousands of times, with its locals passed through.
		{"c hotloop", file(func(t testing.TB) string { return cWasm(t, "testdata/cguests/hotloop") }), `{"n": 3000000, "rounds": 3}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			data := tt.data(t)
			input, _ := json.Marshal(execInput{Args: json.RawMessage(tt.args), Context: execContext{CallID: "c9"}})
			inst, loops, err := instrumentLoops(data)
			if err != nil {
				t.Fatal(err)
			}
			if loops == 0 {
				t.Fatal("no loop instrumented")
			}
			var outs []string
			for _, mod := range [][]byte{data, inst} {
				out, msg, err := callOnce(t, mod, "execute", input)
				if err != nil || msg != "" {
					t.Fatalf("call: %v %s", err, msg)
				}
				outs = append(outs, string(out))
			}
			if outs[0] != outs[1] {
				t.Fatalf("original returned %q, instrumented %q", outs[0], outs[1])
			}
		})
	}
}

// callOnce compiles data in a fresh runtime with toolhost's host modules
// and calls export once. The compiled code is kept in the benchmarks'
// "floor" cache (no termination checks, as here): a Go module compiles
// in seconds, and what is tested is what it computes.
func callOnce(t *testing.T, data []byte, export string, input []byte) ([]byte, string, error) {
	t.Helper()
	ctx := context.Background()
	cache, err := wazero.NewCompilationCacheWithDir(sharedCache + "-floor")
	if err != nil {
		t.Fatal(err)
	}
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().WithCompilationCache(cache))
	t.Cleanup(func() { rt.Close(ctx) })
	wasi_snapshot_preview1.MustInstantiate(ctx, rt)
	if err := instantiateHostModules(ctx, rt); err != nil {
		t.Fatal(err)
	}
	mod, err := rt.CompileModule(ctx, data)
	if err != nil {
		return nil, "", err
	}
	c := newCompiled(rt, mod, false, limitsOf(config.WasmConfig{}, "", ""), "t", nil)
	in, err := c.get(ctx)
	if err != nil {
		return nil, "", err
	}
	ctx = withTestCall(ctx, in)
	_, out, msg, err := in.call(ctx, export, input)
	return out, msg, err
}

// hostileModule is one entry of testdata/instrument_hostile.json.
type hostileModule struct {
	Name string `json:"name"`
	Hex  string `json:"hex"`
	// Error is a substring of instrumentLoops' error; "" means the module
	// must instrument cleanly.
	Error string `json:"error"`
}

func TestInstrumentLoopsRefusesHostileModulesWithoutPanicking(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("testdata/instrument_hostile.json")
	if err != nil {
		t.Fatal(err)
	}
	var corpus []hostileModule
	if err := json.Unmarshal(b, &corpus); err != nil {
		t.Fatal(err)
	}
	for _, tt := range corpus {
		t.Run(tt.Name, func(t *testing.T) {
			t.Parallel()
			data, err := hex.DecodeString(strings.ReplaceAll(tt.Hex, " ", ""))
			if err != nil {
				t.Fatal(err)
			}
			out, _, err := instrumentLoops(data)
			switch {
			case tt.Error == "" && err != nil:
				t.Fatalf("err = %v, want none", err)
			case tt.Error != "" && (err == nil || !strings.Contains(err.Error(), tt.Error)):
				t.Fatalf("err = %v, want one containing %q", err, tt.Error)
			case err == nil:
				// What the instrumenter accepts, wazero must accept once
				// instrumented.
				ctx := context.Background()
				rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter())
				defer rt.Close(ctx)
				if _, err := compileModule(ctx, rt, out); err != nil {
					t.Fatalf("the instrumented module does not compile: %v", err)
				}
			}
		})
	}
}

// FuzzInstrumentLoops checks that instrumenting never panics, and that a
// module wazero accepts is still accepted once instrumented.
func FuzzInstrumentLoops(f *testing.F) {
	f.Add(tinyGuest(tiny{output: "x"}))
	f.Add(tinyGuest(tiny{spin: true}))
	f.Add(tinyGuest(tiny{logs: true}))
	f.Add(tinyGuest(tiny{clash: true}))
	f.Add(tinyGuest(tiny{recurse: 10}))
	f.Fuzz(func(t *testing.T, data []byte) {
		out, _, err := instrumentLoops(data)
		if err != nil {
			return
		}
		ctx := context.Background()
		rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter())
		defer rt.Close(ctx)
		if _, err := compileModule(ctx, rt, data); err != nil {
			return // wazero refuses it, or fails on it (compileModule)
		}
		if _, err := compileModule(ctx, rt, out); err != nil {
			t.Fatalf("wazero accepts the module but not its instrumented form: %v", err)
		}
	})
}

// TestSpinningGuestsOnEveryProcessorAreAllStopped runs more spinning
// guests than Go has processors: native code cannot be preempted, so a
// stop that relied on a timer of a processor the guest holds would never
// fire. Every call must still end with ErrTimeout.
func TestSpinningGuestsOnEveryProcessorAreAllStopped(t *testing.T) {
	t.Parallel()
	h := newHost(t, spinConfig("spinmany"))
	tools := discover(t, h, configDir(t, map[string]string{"spinmany.wasm": writeTiny(t, "spinmany", tiny{spin: true})}))
	n := 2*goruntime.GOMAXPROCS(0) + 1
	errs := make(chan error, n)
	for range n {
		go func() {
			def, err := tools["spinmany"].Init(context.Background(), runtimeInit())
			if err != nil {
				errs <- err
				return
			}
			_, err = def.Execute(context.Background(), json.RawMessage(`{}`), testContext(t, nil, nil))
			errs <- err
		}()
	}
	for range n {
		if err := <-errs; !errors.Is(err, ErrTimeout) {
			t.Errorf("err = %v, want ErrTimeout", err)
		}
	}
}

// TestInstrumentingDeepNestingTakesLinearTime feeds the instrumenter a
// function with 100 000 nested loops around 100 000 local.set and
// calls: what a body does is marked on its innermost loop and handed
// outwards once per loop, so a module dropped into a tool folder cannot
// make loading it quadratic (10^10 steps here).
func TestInstrumentingDeepNestingTakesLinearTime(t *testing.T) {
	t.Parallel()
	const n = 100_000
	code := []byte{1, 1, tI32} // one local
	for range n {
		code = append(code, 0x03, 0x40, 0x0c, 0x00) // loop; br 0 (the loops are targeted)
	}
	for range n {
		code = append(code, 0x41, 0x00, 0x21, 0x00, 0x10, 0x00) // local.set 0; call 0
	}
	for range n + 1 {
		code = append(code, 0x0b)
	}
	mod := wasmModule(
		wasmSection(1, wasmVec(funcType(nil, nil))),
		wasmSection(3, wasmVec([]byte{0})),
		wasmSection(5, wasmVec([]byte{0, 1})),
		wasmSection(10, wasmVec(append(leb(uint64(len(code))), code...))),
	)
	start := time.Now()
	if _, loops, err := instrumentLoops(mod); err != nil || loops != n {
		t.Fatalf("loops = %d, err = %v; want %d, none", loops, err, n)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("instrumenting took %v", d)
	}
}
