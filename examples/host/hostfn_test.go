package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/toolhost/toolhost/host"
	"github.com/toolhost/toolhost/plugins/js/jstooltest"
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
	jstooltest.LinkZod(t, project)
	rules := `{"permission": {"weather": {"*": "allow", "mars": "deny"}}}`
	if err := os.WriteFile(filepath.Join(project, "toolhost.json"), []byte(rules), 0o644); err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	jstooltest.SeedEngine(t, cache)

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
