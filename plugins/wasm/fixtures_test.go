package wasm

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/toolhost/toolhost/internal/testkit/e2e"
	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/config"
	"github.com/toolhost/toolhost/runtime/permission"
)

// Fixture modules are built once per test run, when a test first needs
// them, into buildDir; the Go build cache makes later runs quick.
var (
	buildDir    string
	sharedCache string // one compilation cache for the run: each module compiles once
	builds      sync.Map
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "toolhost-plugins-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	buildDir = filepath.Join(dir, "build")
	// wazero's compilation cache is keyed by module content, so it can
	// outlive the run: later runs skip compiling unchanged modules.
	sharedCache = filepath.Join(os.TempDir(), "toolhost-plugins-test-cache")
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type buildOnce struct {
	once sync.Once
	path string
	err  error
}

// goWasm builds the Go package at dir (relative to the plugins folder)
// with the standard toolchain, as a WASI reactor. The module is the one
// the build cache keeps (e2e.GoBuild): a later test process or run gets
// it without linking again, where `go build -o` linked every guest in
// every run (a second of CPU apiece). Tests copy it before changing it.
func goWasm(t testing.TB, dir string) string {
	t.Helper()
	v, _ := builds.LoadOrStore(dir, &buildOnce{})
	b := v.(*buildOnce)
	b.once.Do(func() {
		abs, err := filepath.Abs(dir)
		if err != nil {
			b.err = err
			return
		}
		b.path, b.err = e2e.GoBuild(abs, []string{"GOOS=wasip1", "GOARCH=wasm", "GOWORK=off"}, "-buildmode=c-shared", ".")
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

// guest builds a test guest from testdata/guests.
func guest(t testing.TB, name string) string {
	return goWasm(t, filepath.Join("testdata", "guests", name))
}

// example builds a Go example from examples/.
func example(t testing.TB, name string) string {
	return goWasm(t, filepath.Join("..", "..", "examples", name))
}

// configDir makes a config directory whose tool/ folder holds the given
// modules, under the given file names.
func configDir(t testing.TB, modules map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	toolDir := filepath.Join(dir, "tool")
	if err := os.MkdirAll(toolDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, src := range modules {
		copyFile(t, src, filepath.Join(toolDir, name))
	}
	return dir
}

func copyFile(t testing.TB, src, dst string) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// newHost returns a host sharing the run's compilation cache.
func newHost(t testing.TB, cfg *config.Config) *Engine {
	t.Helper()
	h := NewEngine(EngineOptions{CacheDir: sharedCache, Config: cfg})
	t.Cleanup(func() { h.Close(context.Background()) })
	return h
}

// freshCache is a cache folder of its own (an empty description cache,
// index.json) whose compiled code is the run's shared one: for a test of
// what Engine compiles, which counts Engine's compiles (Engine.compiling),
// not wazero's; a compile that finds its code in wazero's cache is still
// one. A test that needs wazero itself to compile uses t.TempDir().
func freshCache(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	shared := filepath.Join(sharedCache, "compiled")
	if err := os.MkdirAll(shared, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(shared, filepath.Join(dir, "compiled")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// discover loads the tools of one config directory and fails on any load
// error.
func discover(t testing.TB, h *Engine, dir string) map[string]runtime.Tool {
	t.Helper()
	tools, errs := h.Discover(context.Background(), []string{dir})
	for _, e := range errs {
		t.Errorf("load error: %v", e)
	}
	out := map[string]runtime.Tool{}
	for _, tl := range tools {
		out[tl.ID()] = tl
	}
	return out
}

// call runs a tool as the registry would, minus validation.
func call(t testing.TB, tl runtime.Tool, args string, tc *runtime.Context) (runtime.Result, error) {
	t.Helper()
	def, err := tl.Init(context.Background(), runtime.InitContext{})
	if err != nil {
		t.Fatal(err)
	}
	if tc == nil {
		tc = testContext(t, nil, nil)
	}
	return def.Execute(context.Background(), json.RawMessage(args), tc)
}

func testContext(t testing.TB, meta func(string, map[string]any), ask func(context.Context, permission.Request) error) *runtime.Context {
	dir := t.TempDir()
	return runtime.NewContext(runtime.Context{Directory: dir, Worktree: dir, SessionID: "s1", CallID: "c1", Agent: "build"}, meta, ask)
}

func mustJSON(t testing.TB, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("not JSON: %q: %v", s, err)
	}
	return m
}

func runtimeInit() runtime.InitContext { return runtime.InitContext{} }
