package plugins

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	extism "github.com/extism/go-sdk"
	"github.com/tetratelabs/wazero"

	"github.com/toolhost/toolhost/internal/hostfns"
	"github.com/toolhost/toolhost/runtime"
)

// The benchmarks behind BENCHMARKS.md. Run them with
//
//	go test ./plugins -run '^$' -bench . -benchtime 2s
//
// TestConcurrentCallsEachGetTheirOwnResult and the call tests check that
// what is measured here is also correct.

const benchArgs = `{"text": "hello", "n": 42}`

// BenchmarkCall compares one warm call of the trivial echo tool through
// the host with the same JSON work done natively, and with stock Extism:
// a fresh instance of a compiled plugin per call.
func BenchmarkCall(b *testing.B) {
	wasm := guest(b, "echo")
	tc := testContext(b, nil, nil)

	b.Run("native", func(b *testing.B) {
		type args struct {
			Text string `json:"text"`
			N    int    `json:"n,omitempty"`
		}
		tool := runtime.Define("echo", "Echo.", func(ctx context.Context, a args, tc *runtime.Context) (runtime.Result, error) {
			out, _ := json.Marshal(map[string]any{"text": a.Text, "n": a.N, "call": tc.CallID})
			return runtime.Result{Output: string(out)}, nil
		})
		def, _ := tool.Init(context.Background(), runtime.InitContext{})
		b.ResetTimer()
		for b.Loop() {
			if _, err := def.Execute(context.Background(), json.RawMessage(benchArgs), tc); err != nil {
				b.Fatal(err)
			}
		}
	})

	b.Run("toolhost-pooled", func(b *testing.B) {
		tools := discover(b, newHost(b, nil), configDir(b, map[string]string{"echo.wasm": wasm}))
		def, _ := tools["echo"].Init(context.Background(), runtime.InitContext{})
		def.Execute(context.Background(), json.RawMessage(benchArgs), tc) // compile and fill the pool
		b.ResetTimer()
		for b.Loop() {
			if _, err := def.Execute(context.Background(), json.RawMessage(benchArgs), tc); err != nil {
				b.Fatal(err)
			}
		}
	})

	data, _ := os.ReadFile(wasm)
	input, _ := json.Marshal(execInput{Args: json.RawMessage(benchArgs), Context: execContext{CallID: "c1"}})
	compiled := stockCompiled(b, data, false)

	b.Run("extism-warm-instance", func(b *testing.B) {
		// The Extism layer alone: Plugin.CallWithContext on one reused
		// instance, no pool, no limits, no result parsing.
		p, err := compiled.Instance(context.Background(), extism.PluginInstanceConfig{})
		if err != nil {
			b.Fatal(err)
		}
		defer p.Close(context.Background())
		ctx := hostfns.WithCall(context.Background(), &hostfns.Call{Tool: "echo", Context: tc})
		b.ResetTimer()
		for b.Loop() {
			if _, _, err := p.CallWithContext(ctx, "execute", input); err != nil {
				b.Fatal(err)
			}
		}
	})

	b.Run("extism-warm-instance-terminating", func(b *testing.B) {
		// The same with what toolhost needs for timeouts and cancellation:
		// wazero's termination checks (WithCloseOnContextDone) and a
		// cancellable context, which wazero watches on every call into wasm
		// — including each Extism kernel call the guest makes.
		terminating := stockCompiled(b, data, true)
		p, err := terminating.Instance(context.Background(), extism.PluginInstanceConfig{})
		if err != nil {
			b.Fatal(err)
		}
		defer p.Close(context.Background())
		ctx, cancel := context.WithCancel(hostfns.WithCall(context.Background(), &hostfns.Call{Tool: "echo", Context: tc}))
		defer cancel()
		b.ResetTimer()
		for b.Loop() {
			if _, _, err := p.CallWithContext(ctx, "execute", input); err != nil {
				b.Fatal(err)
			}
		}
	})

	b.Run("extism-fresh-instance", func(b *testing.B) {
		// The baseline: stock Extism usage, a new plugin instance per call
		// from an already compiled module.
		ctx := hostfns.WithCall(context.Background(), &hostfns.Call{Tool: "echo", Context: tc})
		for b.Loop() {
			p, err := compiled.Instance(context.Background(), extism.PluginInstanceConfig{})
			if err != nil {
				b.Fatal(err)
			}
			if _, _, err := p.CallWithContext(ctx, "execute", input); err != nil {
				b.Fatal(err)
			}
			p.Close(context.Background())
		}
	})
}

func stockCompiled(b *testing.B, data []byte, terminating bool) *extism.CompiledPlugin {
	b.Helper()
	cache, err := wazero.NewCompilationCacheWithDir(sharedCache)
	if err != nil {
		b.Fatal(err)
	}
	data, _, _ = redirectImport(data, hostfns.EnvNamespace, hostfns.NameHTTPRequest, hostfns.HTTPNamespace)
	rc := wazero.NewRuntimeConfig().WithCompilationCache(cache).WithCloseOnContextDone(terminating)
	c, err := extism.NewCompiledPlugin(context.Background(), extism.Manifest{Wasm: []extism.Wasm{extism.WasmData{Data: data}}},
		extism.PluginConfig{EnableWasi: true, RuntimeConfig: rc}, hostfns.Functions())
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
	c, err := h.compile(context.Background(), "echo", data, resolveLimits(nil, "echo", "echo", ""))
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
