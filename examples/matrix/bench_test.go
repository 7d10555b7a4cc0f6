package matrix

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/tetratelabs/wazero"

	"github.com/toolhost/toolhost/plugins/wasm"
	"github.com/toolhost/toolhost/runtime"
)

// BenchmarkLanguages measures, per language, what choosing it costs a
// tool's users: the module's size, compiling it cold (no compilation
// cache: a new or changed module), and a warm call through the registry
// (validation, permissions, pool, Extism, the guest's JSON work) of
// words_reverse on a short non-ASCII text. Go is the baseline: compare
// the other rows with its row from the same run.
//
//	go test ./examples/matrix -run '^$' -bench Languages -benchtime 20x
func BenchmarkLanguages(b *testing.B) {
	for _, l := range languages {
		b.Run(l.name+"/compile", func(b *testing.B) {
			wasm, err := os.ReadFile(module(b, l))
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			for b.Loop() {
				r := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigCompiler())
				if _, err := r.CompileModule(ctx, wasm); err != nil {
					b.Fatal(err)
				}
				r.Close(ctx)
			}
			// After the loop: the timer's reset would drop it.
			b.ReportMetric(float64(len(wasm)), "module-bytes")
		})
		b.Run(l.name+"/call", func(b *testing.B) {
			file := module(b, l)
			dir := b.TempDir()
			if err := os.MkdirAll(filepath.Join(dir, "tool"), 0o755); err != nil {
				b.Fatal(err)
			}
			data, err := os.ReadFile(file)
			if err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "tool", "words.wasm"), data, 0o644); err != nil {
				b.Fatal(err)
			}
			host := wasm.NewEngine(wasm.EngineOptions{CacheDir: cacheDir})
			defer host.Close(context.Background())
			tools, errs := host.Discover(context.Background(), []string{dir})
			if len(errs) > 0 {
				b.Fatal(errs)
			}
			reg, err := runtime.NewRegistry(runtime.Options{DataDir: b.TempDir(), Directory: dir})
			if err != nil {
				b.Fatal(err)
			}
			reg.Add(runtime.SourceWasm, tools...)
			call := runtime.Call{Tool: "words_reverse", Args: json.RawMessage(`{"text": "héllo wörld, 日本語"}`), SessionID: "bench"}
			if res, err := reg.Call(context.Background(), call); err != nil || res.Output != "語本日 ,dlröw olléh" {
				b.Fatalf("warm-up call: %q, %v", res.Output, err)
			}
			for b.Loop() {
				if _, err := reg.Call(context.Background(), call); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
