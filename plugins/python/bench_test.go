package python_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/toolhost/toolhost/plugins/python"
	"github.com/toolhost/toolhost/plugins/python/pytooltest"
)

// BenchmarkPythonCall measures a Python tool file (testdata/weather.py:
// typing imports, a Literal, defaults) called through File.Call:
//
//   - baseline-pass: python.wasm running a bare `pass` script on a live
//     runtime — interpreter start and exit, the floor of any instance.
//   - first-call: what a fresh toolhost process pays: a new runtime (the
//     engine's compiled code from the disk cache), the file's tools from
//     the schema cache, then one call on an instance started for it.
//   - warm-call: a call on an instance from the pool, started ahead of
//     time (the refill between calls is not timed).
func BenchmarkPythonCall(b *testing.B) {
	engine := pytooltest.Engine(b)
	ctx := context.Background()
	cache := b.TempDir()
	args := json.RawMessage(`{"city":"Oslo","days":2}`)
	lim := python.Limits{Timeout: time.Minute, MemoryMaxMB: 256}
	sb := python.Sandbox{MemoryMaxMB: 256}
	rt := pytooltest.Runtime(b)
	f, err := python.Load(ctx, "testdata/weather.py", python.LoadOptions{Runtime: rt, CacheDir: cache})
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close(ctx)
	weather := f.Defs[0]
	b.Run("baseline-pass", func(b *testing.B) {
		for b.Loop() {
			if err := rt.RunPass(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("first-call", func(b *testing.B) {
		for b.Loop() {
			r := python.NewRuntime(engine, pytooltest.CompiledDir())
			g, err := python.Load(ctx, "testdata/weather.py", python.LoadOptions{Runtime: r, CacheDir: cache, PoolSize: -1})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := g.Call(ctx, weather, args, python.CallInfo{}, lim, python.Sandbox{}, nil); err != nil {
				b.Fatal(err)
			}
			g.Close(ctx)
			r.Close(ctx)
		}
	})
	b.Run("warm-call", func(b *testing.B) {
		f.Warm(sb)
		for b.Loop() {
			b.StopTimer()
			if !f.WaitIdle(sb, time.Minute) {
				b.Fatal("the pool was not refilled")
			}
			b.StartTimer()
			if _, err := f.Call(ctx, weather, args, python.CallInfo{}, lim, python.Sandbox{}, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}
