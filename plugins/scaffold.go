package plugins

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"text/template"
)

//go:generate sh templates/sync.sh

// templates holds the starting points of `toolhost tool new` and copies of
// the guest SDKs (refreshed by templates/sync.sh, checked by a test).
//
//go:embed templates/go templates/c templates/sdk
var templates embed.FS

// Lang is a language `toolhost tool new` can scaffold.
type Lang string

// The languages New supports.
const (
	LangGo Lang = "go"
	LangC  Lang = "c"
)

// SourcesDir is the folder, inside a config directory (.toolhost), holding
// tool sources; Build writes their modules to the tool/ folder beside it.
const SourcesDir = "tools-src"

// sdkDir is where New vendors the guest SDKs, inside SourcesDir.
const sdkDir = ".sdk"

// validName is what a tool source may be called: a valid tool id that
// leaves room for named tools' suffixes.
var validName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,48}$`)

// New scaffolds a tool source named name in configDir/tools-src/name, in
// Go or C, and vendors the guest SDK into configDir/tools-src/.sdk so the
// tool builds offline. It returns the directory created; it refuses to
// overwrite an existing one.
func New(configDir, name string, lang Lang) (string, error) {
	if !validName.MatchString(name) {
		return "", fmt.Errorf("tool name %q: use letters, digits, _ and - (at most 48), as model APIs require", name)
	}
	src := filepath.Join(configDir, SourcesDir)
	dir := filepath.Join(src, name)
	if _, err := os.Stat(dir); err == nil {
		return "", fmt.Errorf("%s already exists; choose another name or edit it", dir)
	}
	var files map[string]string // template → file name
	switch lang {
	case LangGo, "":
		files = map[string]string{"templates/go/main.go.tmpl": "main.go", "templates/go/go.mod.tmpl": "go.mod"}
	case LangC:
		files = map[string]string{"templates/c/tool.c.tmpl": name + ".c"}
	default:
		return "", fmt.Errorf("language %q is not supported; use go or c", lang)
	}
	if err := vendorSDK(src); err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("scaffold %s: %w", name, err)
	}
	for tmpl, out := range files {
		t, err := template.ParseFS(templates, tmpl)
		if err != nil {
			return "", err
		}
		var b bytes.Buffer
		if err := t.Execute(&b, struct{ Name string }{name}); err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(dir, out), b.Bytes(), 0o644); err != nil {
			return "", fmt.Errorf("scaffold %s: %w", name, err)
		}
	}
	return dir, nil
}

// vendorSDK writes the embedded guest SDKs to src/.sdk, replacing an older
// copy so a toolhost upgrade brings its SDK along.
func vendorSDK(src string) error {
	dst := filepath.Join(src, sdkDir)
	return fs.WalkDir(templates, "templates/sdk", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := templates.ReadFile(p)
		if err != nil {
			return err
		}
		out := filepath.Join(dst, strings.TrimSuffix(strings.TrimPrefix(p, "templates/sdk/"), ".txt"))
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return fmt.Errorf("vendor guest SDK: %w", err)
		}
		if err := os.WriteFile(out, b, 0o644); err != nil {
			return fmt.Errorf("vendor guest SDK: %w", err)
		}
		return nil
	})
}

// BuildResult is the outcome of building one tool source.
type BuildResult struct {
	Name   string
	Lang   Lang
	Output string // the .wasm written, when Err is nil
	Err    error  // with the compiler's output
}

// Build builds every tool source in configDir/tools-src into
// configDir/tool/<name>.wasm: Go sources with `go generate` (toolhost-gen)
// and `GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared`, C sources
// with clang-14 for wasm32-wasi as a reactor. One failing source does not
// stop the others; the error says which failed.
func Build(ctx context.Context, configDir string) ([]BuildResult, error) {
	src := filepath.Join(configDir, SourcesDir)
	entries, err := os.ReadDir(src)
	if err != nil {
		return nil, fmt.Errorf("build tools: %w (create one with toolhost tool new)", err)
	}
	if err := vendorSDK(src); err != nil {
		return nil, err
	}
	outDir := filepath.Join(configDir, "tool")
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return nil, fmt.Errorf("build tools: %w", err)
	}
	var results []BuildResult
	var failed []string
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		dir := filepath.Join(src, e.Name())
		r := BuildResult{Name: e.Name(), Output: filepath.Join(outDir, e.Name()+".wasm")}
		switch {
		case exists(filepath.Join(dir, "go.mod")):
			r.Lang, r.Err = LangGo, buildGo(ctx, dir, r.Output)
		default:
			cs, _ := filepath.Glob(filepath.Join(dir, "*.c"))
			if len(cs) == 0 {
				continue // not a tool source
			}
			r.Lang, r.Err = LangC, buildC(ctx, dir, cs, filepath.Join(src, sdkDir, "c"), r.Output)
		}
		if r.Err != nil {
			r.Output = ""
			failed = append(failed, r.Name)
		}
		results = append(results, r)
	}
	sort.Slice(results, func(i, j int) bool { return results[i].Name < results[j].Name })
	if len(failed) > 0 {
		return results, fmt.Errorf("build tools: %s failed", strings.Join(failed, ", "))
	}
	return results, nil
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

func runCmd(ctx context.Context, dir string, env []string, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %s: %w\n%s", name, strings.Join(args, " "), err, bytes.TrimSpace(out))
	}
	return nil
}

func buildGo(ctx context.Context, dir, out string) error {
	if _, err := exec.LookPath("go"); err != nil {
		return errors.New("the go command is not installed; Go tools need the Go toolchain (1.24 or later)")
	}
	// GOFLAGS=-mod=mod lets the first build write go.sum for the vendored
	// SDK; -buildvcs=false because a tool source inside a project that is
	// not a clean git checkout would otherwise fail to build.
	native := []string{"GOWORK=off", "GOFLAGS=-mod=mod -buildvcs=false"}
	if err := runCmd(ctx, dir, native, "go", "generate", "./..."); err != nil {
		return err
	}
	return runCmd(ctx, dir, append(native, "GOOS=wasip1", "GOARCH=wasm"), "go", "build", "-buildmode=c-shared", "-o", out, ".")
}

func buildC(ctx context.Context, dir string, srcs []string, include, out string) error {
	clang, err := exec.LookPath("clang-14")
	if err != nil {
		if clang, err = exec.LookPath("clang"); err != nil {
			return errors.New("clang is not installed; C tools need clang, lld and wasi-libc (Debian: apt-get install clang-14 lld-14 wasi-libc libclang-rt-14-dev-wasm32)")
		}
	}
	args := append([]string{"--target=wasm32-wasi", "-O2", "-mexec-model=reactor", "-I", include, "-o", out}, srcs...)
	return runCmd(ctx, dir, nil, clang, args...)
}
