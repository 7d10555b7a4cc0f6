package host

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/toolhost/toolhost/plugins/wasm"
)

// BenchmarkPluginFolderReload measures the watch's promise for plugin
// folders — a plugin dropped into a running host's .toolhost/plugin/ is
// listed within 2 s, and gone within 2 s of its removal — where the
// tests only check that it happens: on a shared machine a wall-clock
// limit in a test fails for reasons that are not the code's.
//
// Each iteration drops a warm-cached two-module plugin in, waits until its
// tool is listed, removes it and waits until the tool is gone. The
// baseline in the same run, load-ms, is LoadPlugin of the same bundle in
// process: what any reload must pay, with no watching in it.
func BenchmarkPluginFolderReload(b *testing.B) {
	project, env := newProject(b)
	cacheDir := b.TempDir()
	staged := filepath.Join(b.TempDir(), "guard")
	copyInto(b, guestModule(b, "guard"), filepath.Join(staged, "guard.wasm"))
	copyInto(b, guestModule(b, "echo"), filepath.Join(staged, "echo.wasm"))
	if err := os.WriteFile(filepath.Join(staged, wasm.ManifestFile),
		[]byte(`{"name":"guard","version":"1.0.0","abi":"toolhost-abi 1","modules":["guard.wasm","echo.wasm"]}`), 0o644); err != nil {
		b.Fatal(err)
	}
	warmPlugin(b, cacheDir, staged)
	ctx := context.Background()

	// The baseline: loading the bundle directly, caches warm.
	eng := wasm.NewEngine(wasm.EngineOptions{CacheDir: filepath.Join(cacheDir, "wasm")})
	var load time.Duration
	const loads = 5
	for range loads {
		src, err := wasm.DirBundle(staged)
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		p, err := eng.LoadPlugin(ctx, src)
		if err != nil {
			b.Fatal(err)
		}
		load += time.Since(start)
		eng.UnloadPlugin(p)
	}
	eng.Close(ctx)

	h, err := New(ctx, Options{Directory: project, Env: env, DataDir: b.TempDir(), CacheDir: cacheDir, Watch: true})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close(ctx)
	pluginDir := filepath.Join(project, ".toolhost", "plugin")
	if err := os.MkdirAll(pluginDir, 0o755); err != nil {
		b.Fatal(err)
	}
	wait := func(what string, cond func() bool) time.Duration {
		start := time.Now()
		for !cond() {
			if time.Since(start) > time.Minute {
				b.Fatalf("not within a minute: %s", what)
			}
			time.Sleep(5 * time.Millisecond)
		}
		return time.Since(start)
	}
	var appear, gone time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		inPlace := filepath.Join(pluginDir, "guard")
		if err := os.Rename(staged, inPlace); err != nil {
			b.Fatal(err)
		}
		appear += wait("the dropped plugin's tool is listed", func() bool { return h.Registry.Has("echo") })
		// Keep the bundle for the next round: move it back out.
		if err := os.Rename(inPlace, staged); err != nil {
			b.Fatal(err)
		}
		gone += wait("the removed plugin's tool is gone", func() bool { return !h.Registry.Has("echo") })
	}
	b.StopTimer()
	ms := func(d time.Duration, n int) float64 { return float64(d) / float64(n) / float64(time.Millisecond) }
	b.ReportMetric(ms(appear, b.N), "appear-ms")
	b.ReportMetric(ms(gone, b.N), "gone-ms")
	b.ReportMetric(ms(load, loads), "load-ms")
}
