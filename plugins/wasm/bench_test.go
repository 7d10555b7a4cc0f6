package wasm

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	extism "github.com/extism/go-sdk"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"

	"github.com/toolhost/toolhost/hostfns"
	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/config"
)

// The benchmarks behind BENCHMARKS.md. Run them with
//
//	go test ./plugins -run '^$' -bench . -benchtime 2s
//
// TestConcurrentCallsEachGetTheirOwnResult and the call tests check that
// what is measured here is also correct.

const benchArgs = `{"text": "hello", "n": 42}`

// BenchmarkCall measures one warm call of a trivial tool, for a guest
// with no language runtime (tiny: what a C tool without libc compiles to)
// and a Go-built one (go: testdata/guests/echo, built like the examples),
// at every layer, with its baselines in the same run:
//
//   - wazero-floor: the export called on a wazero instance with toolhost's
//     kernel and no way to stop it: the floor.
//   - wazero-close-on-done: the same with wazero's termination checks
//     (WithCloseOnContextDone) and a cancellable context: the stock way to
//     stop a spinning guest.
//   - wazero-stop-flag: the module with toolhost's inline stop flag
//     (interrupt.go), no wazero checks: what the engine runs.
//   - extism-sdk: the Extism go-sdk's warm instance with termination
//     checks: what the engine ran before it had its own kernel.
//   - engine: the tool's Execute, through pool, limits and timer.
//   - registry: Registry.Call end to end (validation, permission, hooks
//     machinery, truncation, logging); registry-builtin is a trivial
//     built-in through the same registry, so registry − registry-builtin
//     is the wasm overhead of a call (README, target ≤ 25 µs tiny, ≤ 250 µs
//     go).
func BenchmarkCall(b *testing.B) {
	tc := testContext(b, nil, nil)
	input, _ := json.Marshal(execInput{Args: json.RawMessage(benchArgs), Context: execContext{CallID: "c1"}})

	reg := pluginRegistry(b, nil, b.TempDir(), nil)
	reg.Add(runtime.SourceBuiltin, runtime.Define("noop", "Do nothing.", func(ctx context.Context, a struct {
		Text string `json:"text"`
		N    int    `json:"n"`
	}, tc *runtime.Context) (runtime.Result, error) {
		return runtime.Result{Output: a.Text}, nil
	}))
	b.Run("registry-builtin", func(b *testing.B) {
		c := runtime.Call{Tool: "noop", Args: json.RawMessage(benchArgs), SessionID: "s"}
		for b.Loop() {
			if _, err := reg.Call(context.Background(), c); err != nil {
				b.Fatal(err)
			}
		}
	})

	for _, g := range []struct{ name, file string }{
		{"tiny", writeTiny(b, "tiny", tiny{output: `{"output":"ok"}`})},
		{"go", guest(b, "echo")},
	} {
		data, err := os.ReadFile(g.file)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(g.name+"/wazero-floor", func(b *testing.B) {
			benchRaw(b, rawInstance(b, data, "floor"), input, false)
		})
		b.Run(g.name+"/wazero-close-on-done", func(b *testing.B) {
			benchRaw(b, rawInstance(b, data, "close-on-done"), input, true)
		})
		b.Run(g.name+"/wazero-stop-flag", func(b *testing.B) {
			benchRaw(b, rawInstance(b, data, "stop-flag"), input, true)
		})
		b.Run(g.name+"/extism-sdk", func(b *testing.B) {
			p, err := stockCompiled(b, data).Instance(context.Background(), extism.PluginInstanceConfig{})
			if err != nil {
				b.Fatal(err)
			}
			defer p.Close(context.Background())
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			for b.Loop() {
				if _, _, err := p.CallWithContext(ctx, "execute", input); err != nil {
					b.Fatal(err)
				}
			}
		})

		h := newHost(b, nil)
		tools := discover(b, h, configDir(b, map[string]string{"bench" + g.name + ".wasm": g.file}))
		tool := tools["bench"+g.name]
		b.Run(g.name+"/engine", func(b *testing.B) {
			def, _ := tool.Init(context.Background(), runtime.InitContext{})
			def.Execute(context.Background(), json.RawMessage(benchArgs), tc) // compile and fill the pool
			for b.Loop() {
				if _, err := def.Execute(context.Background(), json.RawMessage(benchArgs), tc); err != nil {
					b.Fatal(err)
				}
			}
		})
		reg.Add(runtime.SourceWasm, tool)
		b.Run(g.name+"/registry", func(b *testing.B) {
			c := runtime.Call{Tool: tool.ID(), Args: json.RawMessage(`{}`), SessionID: "s"}
			if g.name == "go" {
				c.Args = json.RawMessage(benchArgs)
			}
			reg.Call(context.Background(), c)
			for b.Loop() {
				if _, err := reg.Call(context.Background(), c); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// rawInstance instantiates data in a runtime of its own with toolhost's
// host modules, compiled as mode says: "floor" (no termination),
// "close-on-done" (wazero's checks) or "stop-flag" (interrupt.go). Each
// mode has its own compilation cache: wazero's cache key is the module's
// bytes, not how it was compiled.
func rawInstance(b *testing.B, data []byte, mode string) *instance {
	b.Helper()
	ctx := context.Background()
	cache, err := wazero.NewCompilationCacheWithDir(sharedCache + "-" + mode)
	if err != nil {
		b.Fatal(err)
	}
	rc := wazero.NewRuntimeConfig().WithCompilationCache(cache).WithCloseOnContextDone(mode == "close-on-done")
	if mode == "stop-flag" {
		if data, _, err = instrumentLoops(data); err != nil {
			b.Fatal(err)
		}
	}
	rt := wazero.NewRuntimeWithConfig(ctx, rc)
	b.Cleanup(func() { rt.Close(ctx) })
	wasi_snapshot_preview1.MustInstantiate(ctx, rt)
	if err := instantiateHostModules(ctx, rt); err != nil {
		b.Fatal(err)
	}
	mod, err := rt.CompileModule(ctx, data)
	if err != nil {
		b.Fatal(err)
	}
	c := newCompiled(rt, mod, mode == "stop-flag", limitsOf(config.WasmConfig{}, "", ""), "bench", nil)
	in, err := c.get(ctx)
	if err != nil {
		b.Fatal(err)
	}
	return in
}

// benchRaw calls execute on in; cancellable gives the call a context that
// can be cancelled, as a call with a time limit has.
func benchRaw(b *testing.B, in *instance, input []byte, cancellable bool) {
	ctx := hostfns.WithCall(context.Background(), &hostfns.Call{Tool: "bench", Memory: in.k})
	if cancellable {
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
	}
	for b.Loop() {
		if _, _, msg, err := in.call(ctx, "execute", input); err != nil || msg != "" {
			b.Fatal(err, msg)
		}
	}
}

// stockCompiled compiles data with the Extism go-sdk as toolhost did
// before it had its own kernel: wazero's termination checks on, and
// toolhost's user functions as no-op Extism host functions (the bench
// guests call none).
func stockCompiled(b *testing.B, data []byte) *extism.CompiledPlugin {
	b.Helper()
	cache, err := wazero.NewCompilationCacheWithDir(sharedCache + "-extism")
	if err != nil {
		b.Fatal(err)
	}
	var fns []extism.HostFunction
	for _, f := range hostfns.Functions() {
		if f.Namespace != hostfns.Namespace {
			continue
		}
		hf := extism.NewHostFunctionWithStack(f.Name, func(ctx context.Context, p *extism.CurrentPlugin, stack []uint64) { stack[0] = 0 }, f.Params, f.Results)
		hf.SetNamespace(f.Namespace)
		fns = append(fns, hf)
	}
	rc := wazero.NewRuntimeConfig().WithCompilationCache(cache).WithCloseOnContextDone(true)
	c, err := extism.NewCompiledPlugin(context.Background(), extism.Manifest{Wasm: []extism.Wasm{extism.WasmData{Data: data}}},
		extism.PluginConfig{EnableWasi: true, RuntimeConfig: rc}, fns)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close(context.Background()) })
	return c
}

// BenchmarkPool measures taking and returning a pooled instance: the
// pool's share of a call's overhead.
func BenchmarkPool(b *testing.B) {
	h := newHost(b, nil)
	data, _ := os.ReadFile(guest(b, "echo"))
	c, err := h.compile(context.Background(), "echo", data, limitsOf(config.WasmConfig{}, "", ""))
	if err != nil {
		b.Fatal(err)
	}
	defer c.close(context.Background())
	in, _ := c.get(context.Background())
	c.release(in, true)
	b.ResetTimer()
	for b.Loop() {
		in, err := c.get(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		c.release(in, true)
	}
}

// BenchmarkList lists 20 distinct Go-built modules with a fresh Engine, as
// `toolhost tools` does in a new process: warm (descriptions cached) and
// cold (nothing cached: every module is compiled).
func BenchmarkList(b *testing.B) {
	dir := twentyModules(b)
	b.Run("warm", func(b *testing.B) {
		cache := b.TempDir()
		h := NewEngine(EngineOptions{CacheDir: cache})
		h.Discover(context.Background(), []string{dir})
		h.Close(context.Background())
		b.ResetTimer()
		for b.Loop() {
			h := NewEngine(EngineOptions{CacheDir: cache})
			tools, errs := h.Discover(context.Background(), []string{dir})
			if len(tools) != 20 || len(errs) > 0 {
				b.Fatalf("%d tools, errors %v", len(tools), errs)
			}
			h.Close(context.Background())
		}
	})
	b.Run("cold-section", func(b *testing.B) {
		// The same 20 modules built as `toolhost tool build` builds them,
		// with their toolhost.tools section, and nothing cached.
		dir := twentyModulesFrom(b, sealedEcho(b))
		for b.Loop() {
			h := NewEngine(EngineOptions{CacheDir: b.TempDir()})
			tools, errs := h.Discover(context.Background(), []string{dir})
			if len(tools) != 20 || len(errs) > 0 {
				b.Fatalf("%d tools, errors %v", len(tools), errs)
			}
			h.Close(context.Background())
		}
	})
	b.Run("cold", func(b *testing.B) {
		for b.Loop() {
			h := NewEngine(EngineOptions{CacheDir: b.TempDir()})
			tools, errs := h.Discover(context.Background(), []string{dir})
			if len(tools) != 20 || len(errs) > 0 {
				b.Fatalf("%d tools, errors %v", len(tools), errs)
			}
			h.Close(context.Background())
		}
	})
}

// BenchmarkFirstCall is the first call of a tool in a fresh process whose
// caches are warm: list, compile from the on-disk cache, instantiate, call.
func BenchmarkFirstCall(b *testing.B) {
	dir := configDir(b, map[string]string{"echo.wasm": guest(b, "echo")})
	cache := b.TempDir()
	h := NewEngine(EngineOptions{CacheDir: cache})
	tools, _ := h.Discover(context.Background(), []string{dir})
	call(b, tools[0], benchArgs, nil)
	h.Close(context.Background())
	tc := testContext(b, nil, nil)
	b.ResetTimer()
	for b.Loop() {
		h := NewEngine(EngineOptions{CacheDir: cache})
		tools, _ := h.Discover(context.Background(), []string{dir})
		def, _ := tools[0].Init(context.Background(), runtime.InitContext{})
		if _, err := def.Execute(context.Background(), json.RawMessage(benchArgs), tc); err != nil {
			b.Fatal(err)
		}
		h.Close(context.Background())
	}
}

// twentyModules writes 20 copies of the echo module, each made distinct by
// a custom section, so each has its own sha256 and compiles on its own.
func twentyModules(b *testing.B) string {
	data, err := os.ReadFile(guest(b, "echo"))
	if err != nil {
		b.Fatal(err)
	}
	return twentyModulesFrom(b, data)
}

// sealedEcho is the echo module with its toolhost.tools section, as
// `toolhost tool build` leaves it.
func sealedEcho(b *testing.B) []byte {
	dir := configDir(b, map[string]string{"echo.wasm": guest(b, "echo")})
	path := filepath.Join(dir, "tool", "echo.wasm")
	h := NewEngine(EngineOptions{CacheDir: sharedCache})
	defer h.Close(context.Background())
	if err := h.EmbedToolList(context.Background(), path); err != nil {
		b.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// twentyModulesFrom writes 20 copies of data, each made distinct by a
// trailing custom section.
func twentyModulesFrom(b *testing.B, data []byte) string {
	dir := b.TempDir()
	os.MkdirAll(filepath.Join(dir, "tool"), 0o755)
	for i := range 20 {
		name := fmt.Sprintf("bench%02d", i)
		section := "toolhost-bench"
		payload := append(append(leb(uint64(len(section))), section...), name...)
		mod := append(append(append([]byte{}, data...), 0), leb(uint64(len(payload)))...)
		mod = append(mod, payload...)
		if err := os.WriteFile(filepath.Join(dir, "tool", name+".wasm"), mod, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}
