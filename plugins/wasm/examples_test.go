package wasm

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/config"
	"github.com/toolhost/toolhost/runtime/permission"
	"github.com/toolhost/toolhost/runtime/tooltest"
)

// cWasm builds a C example with clang-14 for wasm32-wasi. Without clang
// the test is skipped with a message — except in CI (CI=true), where the
// toolchain must be installed and a missing one fails.
func cWasm(t testing.TB, dir string) string {
	t.Helper()
	clang, err := exec.LookPath("clang-14")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("clang-14 is required in CI: apt-get install clang-14 lld-14 wasi-libc libclang-rt-14-dev-wasm32")
		}
		t.Skip("clang-14 not found; install clang-14 lld-14 wasi-libc libclang-rt-14-dev-wasm32 to build the C examples")
	}
	v, _ := builds.LoadOrStore("c:"+dir, &buildOnce{})
	b := v.(*buildOnce)
	b.once.Do(func() {
		srcs, _ := filepath.Glob(filepath.Join(dir, "*.c"))
		b.path = filepath.Join(buildDir, filepath.Base(dir)+".wasm")
		os.MkdirAll(buildDir, 0o755)
		args := append([]string{"--target=wasm32-wasi", "-O2", "-mexec-model=reactor", "-Wall", "-Werror",
			"-I", filepath.Join("..", "..", "sdk-guest", "c"), "-o", b.path}, srcs...)
		if out, err := exec.Command(clang, args...).CombinedOutput(); err != nil {
			b.err = fmt.Errorf("clang-14 %s: %v\n%s", dir, err, out)
		}
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

// registry puts the tools of a config directory into a runtime.Registry,
// as a program embedding toolhost does, so calls go through validation,
// permissions, truncation and hooks like a built-in tool's.
func registry(t *testing.T, cfg *config.Config, project string, asker permission.Asker, modules map[string]string) *runtime.Registry {
	t.Helper()
	if cfg == nil {
		cfg = &config.Config{}
	}
	h := newHost(t, cfg)
	tools, errs := h.Discover(context.Background(), []string{configDir(t, modules)})
	if len(errs) > 0 {
		t.Fatalf("load errors: %v", errs)
	}
	reg, err := runtime.NewRegistry(runtime.Options{Config: cfg, Asker: asker, DataDir: t.TempDir(), Directory: project, Worktree: project})
	if err != nil {
		t.Fatal(err)
	}
	reg.Add(runtime.SourceWasm, tools...)
	return reg
}

func TestWordcountInCCountsText(t *testing.T) {
	t.Parallel()
	reg := registry(t, nil, t.TempDir(), nil, map[string]string{"wordcount.wasm": cWasm(t, "../../examples/wordcount")})
	res, err := reg.Call(context.Background(), runtime.Call{Tool: "wordcount", SessionID: "s",
		Args: []byte(`{"text": "The cat saw the dog.\nThe dog ran — vite!\n", "top": 2}`)})
	if err != nil {
		t.Fatal(err)
	}
	want := "lines: 2\nwords: 9\ncharacters: 41\nbytes: 43\nmost frequent:\n  the 3\n  dog 2\n"
	if res.Output != want || res.Title != "9 words" {
		t.Errorf("output = %q (title %q), want %q", res.Output, res.Title, want)
	}
	_, err = reg.Call(context.Background(), runtime.Call{Tool: "wordcount", SessionID: "s", Args: []byte(`{"top": 2}`)})
	var ve *runtime.ValidationError
	if !errors.As(err, &ve) {
		t.Errorf("missing text: err = %v, want the registry's validation error from the guest's schema", err)
	}
}

func TestExamplesPassTheToolConformanceSuite(t *testing.T) {
	t.Parallel()
	project := t.TempDir()
	cfg := &config.Config{Wasm: map[string]config.WasmConfig{"todo": {AllowedPaths: map[string]string{".": "/project"}}}}
	h := newHost(t, cfg)
	tools, errs := h.Discover(context.Background(), []string{configDir(t, map[string]string{
		"json.wasm": example(t, "json"), "todo.wasm": example(t, "todo"), "loc.wasm": example(t, "loc"),
	})})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	_ = project
	for _, tl := range tools {
		t.Run(tl.ID(), func(t *testing.T) { tooltest.Run(t, tl) })
	}
}

func TestTodoAsksBeforeEditingAndLeavesTheFileAloneWhenRefused(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		reply    permission.Reply
		wantErr  any
		wantFile string
	}{
		{"an approval lets it add the item", permission.Reply{Kind: permission.Once}, nil, "# TODO\n\n- [ ] old\n- [ ] write tests\n"},
		{"a rejection is returned as the typed rejection", permission.Reply{Kind: permission.Reject}, new(*permission.RejectedError), "- [ ] old\n"},
		{"a correction carries the user's message", permission.Reply{Kind: permission.Reject, Message: "not that one"}, new(*permission.CorrectedError), "- [ ] old\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			project := t.TempDir()
			os.WriteFile(filepath.Join(project, "TODO.md"), []byte("- [ ] old\n"), 0o644)
			var asked []permission.Request
			var mu sync.Mutex
			asker := permission.AskerFunc(func(ctx context.Context, req permission.Request) (permission.Reply, error) {
				mu.Lock()
				asked = append(asked, req)
				mu.Unlock()
				return tt.reply, nil
			})
			cfg := &config.Config{
				Permission: permission.Config{Rules: permission.Ruleset{{Permission: "edit", Pattern: "*", Action: permission.Ask}}},
				Wasm:       map[string]config.WasmConfig{"todo": {AllowedPaths: map[string]string{".": "/project"}}},
			}
			reg := registry(t, cfg, project, asker, map[string]string{"todo.wasm": example(t, "todo")})
			res, err := reg.Call(context.Background(), runtime.Call{Tool: "todo_add", SessionID: "s", Args: []byte(`{"item": "write tests"}`)})
			if tt.wantErr != nil {
				if !errors.As(err, tt.wantErr) {
					t.Fatalf("err = %T %v, want %T", err, err, tt.wantErr)
				}
			} else if err != nil || !strings.Contains(res.Output, "Added item 2") {
				t.Fatalf("res = %+v, err = %v", res, err)
			}
			if len(asked) != 1 || asked[0].Permission != "edit" || asked[0].Patterns[0] != "TODO.md" || asked[0].Tool != "todo_add" {
				t.Errorf("asked = %+v", asked)
			}
			got, _ := os.ReadFile(filepath.Join(project, "TODO.md"))
			if string(got) != tt.wantFile {
				t.Errorf("TODO.md = %q, want %q", got, tt.wantFile)
			}
		})
	}
}

func TestTodoIsDeniedByARuleWithoutAskingAnyone(t *testing.T) {
	t.Parallel()
	project := t.TempDir()
	cfg := &config.Config{
		Permission: permission.Config{Rules: permission.Ruleset{{Permission: "edit", Pattern: "TODO.md", Action: permission.Deny}}},
		Wasm:       map[string]config.WasmConfig{"todo": {AllowedPaths: map[string]string{".": "/project"}}},
	}
	asker := permission.AskerFunc(func(context.Context, permission.Request) (permission.Reply, error) {
		t.Error("a denied request must not reach the asker")
		return permission.Reply{Kind: permission.Once}, nil
	})
	reg := registry(t, cfg, project, asker, map[string]string{"todo.wasm": example(t, "todo")})
	_, err := reg.Call(context.Background(), runtime.Call{Tool: "todo_add", SessionID: "s", Args: []byte(`{"item": "x"}`)})
	var de *permission.DeniedError
	if !errors.As(err, &de) {
		t.Fatalf("err = %T %v, want *permission.DeniedError", err, err)
	}
	if _, err := os.Stat(filepath.Join(project, "TODO.md")); !os.IsNotExist(err) {
		t.Error("TODO.md was created despite the denial")
	}
}

func TestLocReadsTheProjectThroughItsGrantAndReportsProgress(t *testing.T) {
	t.Parallel()
	project := t.TempDir()
	for i := range 120 {
		os.WriteFile(filepath.Join(project, fmt.Sprintf("f%03d.go", i)), []byte("package x\n\nfunc F() {}\n"), 0o644)
	}
	os.MkdirAll(filepath.Join(project, "docs"), 0o755)
	os.WriteFile(filepath.Join(project, "docs", "a.md"), []byte("# A\n\ntext\n"), 0o644)
	os.MkdirAll(filepath.Join(project, ".git"), 0o755)
	os.WriteFile(filepath.Join(project, ".git", "HEAD"), []byte("ref\n"), 0o644)

	granted := &config.Config{Wasm: map[string]config.WasmConfig{"loc": {AllowedPaths: map[string]string{"ro:.": "/project"}}}}
	reg := registry(t, granted, project, nil, map[string]string{"loc.wasm": example(t, "loc")})
	var titles []string
	res, err := reg.Call(context.Background(), runtime.Call{Tool: "loc", SessionID: "s", Args: []byte(`{}`),
		OnMetadata: func(title string, _ map[string]any) { titles = append(titles, title) }})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{".go             120        240", ".md               1          2", "total           121        242"} {
		if !strings.Contains(res.Output, want) {
			t.Errorf("output lacks %q:\n%s", want, res.Output)
		}
	}
	if strings.Join(titles, "|") != "50 files counted|100 files counted" {
		t.Errorf("progress = %q", titles)
	}

	refused := registry(t, nil, project, nil, map[string]string{"loc.wasm": example(t, "loc")})
	_, err = refused.Call(context.Background(), runtime.Call{Tool: "loc", SessionID: "s", Args: []byte(`{}`)})
	if err == nil || !strings.Contains(err.Error(), `"allowed_paths": {"ro:.": "/project"}`) {
		t.Errorf("without a grant: err = %v, want advice on granting the path", err)
	}
}
