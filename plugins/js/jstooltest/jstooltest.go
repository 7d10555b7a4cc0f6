// Package jstooltest gives tests outside jstool what JS tools need: the
// engine in a cache folder and a node_modules with zod. Both come from npm
// once per machine; without npm the test skips, and on CI (CI=true) it
// fails, because .ci/run installs them.
package jstooltest

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/toolhost/toolhost/plugins/js"
)

// ZodVersion is the zod the fixtures are tested with; .ci/run installs it
// outside the repository and points TOOLHOST_ZOD_DIR at it.
const ZodVersion = "4.6.7"

var (
	once   sync.Once
	engine []byte
	zodDir string
	err    error
)

func setup() {
	engine, err = js.LoadEngine(context.Background(), js.EngineDir())
	if err != nil {
		return
	}
	zodDir = os.Getenv("TOOLHOST_ZOD_DIR")
	if zodDir == "" {
		cache, cerr := os.UserCacheDir()
		if cerr != nil {
			err = cerr
			return
		}
		zodDir = filepath.Join(cache, "toolhost-e2e", "zod-"+ZodVersion)
	}
	if _, serr := os.Stat(filepath.Join(zodDir, "node_modules", "zod", "package.json")); serr == nil {
		return
	}
	npm, lerr := exec.LookPath("npm")
	if lerr != nil {
		err = lerr
		return
	}
	if out, ierr := exec.Command(npm, "install", "--no-audit", "--no-fund", "--loglevel=error", "--prefix", zodDir, "zod@"+ZodVersion).CombinedOutput(); ierr != nil {
		err = fmt.Errorf("npm install zod@%s: %w\n%s", ZodVersion, ierr, out)
	}
}

func need(t testing.TB) {
	t.Helper()
	once.Do(setup)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("JS tools need the engine and zod: %v", err)
		}
		t.Skipf("JS engine or zod unavailable (needs npm): %v", err)
	}
}

// SeedEngine puts the verified engine into cacheDir/engines, where a host
// with that cache directory looks for it.
func SeedEngine(t testing.TB, cacheDir string) {
	t.Helper()
	need(t)
	dir := filepath.Join(cacheDir, "engines")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	name := "quickjs-wasi-" + js.EngineVersion + ".wasm"
	if err := os.WriteFile(filepath.Join(dir, name), engine, 0o644); err != nil {
		t.Fatal(err)
	}
}

// LinkZod installs zod into project/node_modules: hard links to the
// shared install (whole copies across file systems). Not a symbolic link
// to it: a tool's bundle takes packages only from inside the project,
// judged where links lead.
func LinkZod(t testing.TB, project string) {
	t.Helper()
	need(t)
	src := filepath.Join(zodDir, "node_modules")
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(project, "node_modules", rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(to, 0o755)
		case d.Type()&fs.ModeSymlink != 0:
			l, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(l, to)
		}
		if os.Link(p, to) == nil {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(to, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}
