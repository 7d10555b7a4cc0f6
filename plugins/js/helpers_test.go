package js

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/toolhost/toolhost/internal/testkit/compiled"
)

// zodVersion is the zod the fixtures are tested with; .ci/run installs it
// outside the repository and points TOOLHOST_ZOD_DIR at it.
const zodVersion = "4.6.7"

var (
	zodOnce sync.Once
	zodDir  string
	zodErr  error
)

// testZod returns a folder holding node_modules/zod, installing it with npm
// into the user cache once. Without npm the test skips, except on CI.
func testZod(t testing.TB) string {
	t.Helper()
	zodOnce.Do(func() {
		dir := os.Getenv("TOOLHOST_ZOD_DIR")
		if dir == "" {
			cache, err := os.UserCacheDir()
			if err != nil {
				zodErr = err
				return
			}
			dir = filepath.Join(cache, "toolhost-e2e", "zod-"+zodVersion)
		}
		if _, err := os.Stat(filepath.Join(dir, "node_modules", "zod", "package.json")); err == nil {
			zodDir = dir
			return
		}
		npm, err := exec.LookPath("npm")
		if err != nil {
			zodErr = err
			return
		}
		out, err := exec.Command(npm, "install", "--no-audit", "--no-fund", "--loglevel=error", "--prefix", dir, "zod@"+zodVersion).CombinedOutput()
		if err != nil {
			zodErr = &exec.Error{Name: "npm install zod: " + string(out), Err: err}
			return
		}
		zodDir = dir
	})
	if zodErr != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("zod for the JS tool fixtures: %v", zodErr)
		}
		t.Skipf("zod unavailable (needs npm): %v", zodErr)
	}
	return zodDir
}

// project makes a project folder with .opencode/node_modules/zod and the
// named fixtures copied into .opencode/tool/, and returns the tool folder.
// zod is installed inside .opencode (the folder a tool loaded without a
// Root may import from), not linked: a bundle takes packages only from
// inside the project.
func project(t testing.TB, fixtures ...string) string {
	t.Helper()
	zod := testZod(t)
	root := t.TempDir()
	linkTree(t, filepath.Join(zod, "node_modules"), filepath.Join(root, ".opencode", "node_modules"))
	dir := filepath.Join(root, ".opencode", "tool")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range fixtures {
		b, err := os.ReadFile(filepath.Join("testdata", "tools", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// linkTree copies the folder src to dst with hard links (whole copies
// across file systems), so a test project holds its packages itself.
func linkTree(t testing.TB, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
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

var (
	rtOnce sync.Once
	rt     *Runtime
	rtErr  error
)

// testRuntime is one engine runtime (64 MB cap) shared by the tests, its
// compiled code in the machine's shared folder (internal/testkit/compiled),
// so the engine compiles once per machine, not once per test binary.
func testRuntime(t testing.TB) *Runtime {
	t.Helper()
	engine := testEngine(t)
	rtOnce.Do(func() { rt, rtErr = NewRuntime(context.Background(), engine, 64, compiled.Dir(compiled.JS)) })
	if rtErr != nil {
		t.Fatal(rtErr)
	}
	return rt
}

// loadFixture loads one fixture file on the shared runtime.
func loadFixture(t testing.TB, name string) *File {
	t.Helper()
	dir := project(t, name)
	f, err := Load(context.Background(), filepath.Join(dir, name), LoadOptions{Runtime: testRuntime(t), CacheDir: filepath.Join(t.TempDir(), "cache")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close(context.Background()) })
	return f
}

func errorsAs(err error, target any) bool { return errors.As(err, target) }
