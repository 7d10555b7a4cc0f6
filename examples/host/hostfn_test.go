package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/toolhost/toolhost/host"
	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/permission"
)

// TestAGoGuestAndAJSToolCallTheHostFunctionThisProgramAdds: the project
// holds a wasm tool built from testdata/forecast (Go, the guest SDK's
// CallHost) and a JS tool, testdata/sky.ts (context.callHost); both reach
// weather, which options() adds, and its permission rules decide.
func TestAGoGuestAndAJSToolCallTheHostFunctionThisProgramAdds(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a wasm module and runs the JS engine")
	}
	project := t.TempDir()
	toolDir := filepath.Join(project, ".toolhost", "tool")
	for _, d := range []string{filepath.Join(project, ".git"), toolDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	copyFile(t, forecastWasm(t), filepath.Join(toolDir, "forecast.wasm"))
	copyFile(t, filepath.Join("testdata", "sky.ts"), filepath.Join(toolDir, "sky.ts"))
	linkTree(t, zodModules(t), filepath.Join(project, "node_modules"))
	rules := `{"permission": {"weather": {"*": "allow", "mars": "deny"}}}`
	if err := os.WriteFile(filepath.Join(project, "toolhost.json"), []byte(rules), 0o644); err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	seedJSEngine(t, cache)

	opts, err := options()
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	env := map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, "config"), "XDG_CACHE_HOME": cache,
		// The project's own tools run only in a trusted project; the
		// test trusts it as CI would (docs/security.md).
		"TOOLHOST_TRUSTED_PROJECTS": project, "PATH": os.Getenv("PATH")}
	opts.Directory, opts.DataDir, opts.CacheDir = project, t.TempDir(), cache
	opts.Env = func(k string) string { return env[k] }
	ctx := context.Background()
	h, err := host.New(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(ctx)
	for _, e := range h.LoadErrors {
		t.Fatalf("load error: %v", e)
	}
	tests := []struct {
		name, tool, city string
		want             string // the output, or what the error says
		wantKind         string // permission.Kind of the error
	}{
		{"the Go guest gets the forecast", "forecast", "Paris", "Paris: clear, up to 21°C", ""},
		{"the JS tool gets the forecast", "sky", "Oslo", "Oslo: snow", ""},
		{"a deny rule refuses the Go guest", "forecast", "Mars", "weather", "denied"},
		{"a deny rule refuses the JS tool", "sky", "Mars", "weather", "denied"},
		{"the function's own error reaches the Go guest", "forecast", "Atlantis", `weather: no forecast for "Atlantis"`, ""},
		{"the function's own error reaches the JS tool", "sky", "Atlantis", `weather: no forecast for "Atlantis"`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args, _ := json.Marshal(map[string]string{"city": tt.city})
			res, err := h.Call(ctx, runtime.Call{Tool: tt.tool, Args: args, SessionID: "example"})
			switch {
			case tt.wantKind != "":
				if string(permission.Kind(err)) != tt.wantKind || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("%s(%s) = %q, %v; want the %s refusal", tt.tool, tt.city, res.Output, err, tt.wantKind)
				}
			case strings.HasPrefix(tt.city, "Atlantis"):
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("%s(%s) = %q, %v; want an error saying %q", tt.tool, tt.city, res.Output, err, tt.want)
				}
			case err != nil || strings.TrimSpace(res.Output) != tt.want:
				t.Fatalf("%s(%s) = %q, %v; want %q", tt.tool, tt.city, res.Output, err, tt.want)
			}
		})
	}
}

var forecastBuild struct {
	once sync.Once
	dir  string // removed by TestMain
	path string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if forecastBuild.dir != "" {
		os.RemoveAll(forecastBuild.dir)
	}
	os.Exit(code)
}

// forecastWasm builds testdata/forecast once per test run with the
// standard Go toolchain, as a WASI reactor, against the guest SDK of the
// toolhost this module uses: this repository's, or the copy a module
// requiring toolhost has (found with go list), so the test runs the same
// inside the repository and as an outside module.
func forecastWasm(t *testing.T) string {
	t.Helper()
	forecastBuild.once.Do(func() {
		root, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/toolhost/toolhost").Output()
		if err != nil {
			forecastBuild.err = fmt.Errorf("find toolhost's module: %w", err)
			return
		}
		sdk := filepath.Join(strings.TrimSpace(string(root)), "sdk-guest", "go")
		if _, err := os.Stat(filepath.Join(sdk, "go.mod")); err != nil {
			forecastBuild.err = fmt.Errorf("the guest SDK is not beside toolhost's module (%v); replace github.com/toolhost/toolhost with a checkout", err)
			return
		}
		dir, err := os.MkdirTemp("", "toolhost-example-host-")
		if err != nil {
			forecastBuild.err = err
			return
		}
		forecastBuild.dir = dir
		modfile := filepath.Join(dir, "go.mod")
		mod := "module forecast\n\ngo 1.24\n\nrequire github.com/toolhost/toolhost/sdk-guest/go v0.0.0\n\nreplace github.com/toolhost/toolhost/sdk-guest/go => " + sdk + "\n"
		if err := os.WriteFile(modfile, []byte(mod), 0o644); err != nil {
			forecastBuild.err = err
			return
		}
		forecastBuild.path = filepath.Join(dir, "forecast.wasm")
		cmd := exec.Command("go", "build", "-modfile="+modfile, "-buildmode=c-shared", "-o", forecastBuild.path, ".")
		cmd.Dir = filepath.Join("testdata", "forecast")
		cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "GOWORK=off")
		if out, err := cmd.CombinedOutput(); err != nil {
			forecastBuild.err = fmt.Errorf("build testdata/forecast: %v\n%s", err, out)
		}
	})
	if forecastBuild.err != nil {
		t.Fatal(forecastBuild.err)
	}
	return forecastBuild.path
}

// unavailable skips the test for a missing toolchain piece, or fails it
// on CI, which installs everything (.ci/run).
func unavailable(t *testing.T, format string, args ...any) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf(format, args...)
	}
	t.Skipf(format, args...)
}

// zodModules is a node_modules holding zod, which every JS tool's
// arguments are described with: TOOLHOST_ZOD_DIR's (set by .ci/run), else
// one installed with npm into the user cache once per machine.
func zodModules(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("TOOLHOST_ZOD_DIR")
	if dir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			unavailable(t, "no user cache directory for zod: %v", err)
		}
		dir = filepath.Join(cache, "toolhost-e2e", "zod-4.6.7")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "zod", "package.json")); err != nil {
		out, err := exec.Command("npm", "install", "--no-audit", "--no-fund", "--loglevel=error", "--prefix", dir, "zod@4.6.7").CombinedOutput()
		if err != nil {
			unavailable(t, "JS tools need zod, and npm could not install it: %v\n%s", err, out)
		}
	}
	return filepath.Join(dir, "node_modules")
}

// seedJSEngine copies the JS engine a toolhost on this machine already
// fetched (the user cache's toolhost/engines) into cache, so the test
// does not fetch it again; without one, host.New fetches it with npm.
func seedJSEngine(t *testing.T, cache string) {
	t.Helper()
	user, err := os.UserCacheDir()
	if err != nil {
		return
	}
	src := filepath.Join(user, "toolhost", "engines")
	if _, err := os.Stat(src); err != nil {
		if _, err := exec.LookPath("npm"); err != nil {
			unavailable(t, "no JS engine cached and no npm to fetch it: %v", err)
		}
		return
	}
	linkTree(t, src, filepath.Join(cache, "engines"))
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// linkTree copies the folder src to dst, with hard links where it can:
// a JS tool's bundle takes packages only from inside the project, judged
// where links lead, so a symbolic link out of it would not do.
func linkTree(t *testing.T, src, dst string) {
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
