package toolbuild

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"testing"
)

func TestEmbeddedSDKsMatchSdkGuest(t *testing.T) {
	t.Parallel()
	err := fs.WalkDir(templates, "templates/sdk", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel := sdkFile(p)
		want, err := os.ReadFile(filepath.Join("..", "..", "..", "sdk-guest", rel))
		if err != nil {
			t.Errorf("%s: %v", rel, err)
			return nil
		}
		got, _ := templates.ReadFile(p)
		if string(got) != string(want) {
			t.Errorf("templates/sdk/%s differs from sdk-guest/%s; run go generate ./internal/engines/toolbuild", rel, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestNewRefusesBadNamesLanguagesAndExistingTools(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, err := New(dir, "dup", LangGo); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, tool string
		lang       Lang
		want       string
	}{
		{"a name with a space is not a tool id", "my tool", LangGo, "use letters"},
		{"an unknown language is named with the supported ones", "x", "cobol", `language "cobol" is not supported; choose go, c, rust, assemblyscript or d`},
		{"an existing source is never overwritten", "dup", LangGo, "already exists"},
	}
	for _, tt := range tests {
		if _, err := New(dir, tt.tool, tt.lang); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want %q", tt.name, err, tt.want)
		}
	}
}

func TestParseLangAcceptsEveryLanguageAndDefaultsToGo(t *testing.T) {
	t.Parallel()
	for _, l := range Langs() {
		if got, err := ParseLang(string(l)); err != nil || got != l {
			t.Errorf("ParseLang(%q) = %q, %v", l, got, err)
		}
	}
	if got, err := ParseLang(""); err != nil || got != LangGo {
		t.Errorf("ParseLang(\"\") = %q, %v; want go", got, err)
	}
	if _, err := ParseLang("Rust"); err == nil {
		t.Error("ParseLang accepted Rust; language names are lower case")
	}
}

func TestNewWritesEachLanguagesTemplateAndSDK(t *testing.T) {
	t.Parallel()
	tests := []struct {
		lang  Lang
		files []string // in the tool's folder
		sdk   []string // in tools-src/.sdk
	}{
		{LangGo, []string{"main.go", "go.mod"}, []string{"go/tool.go", "go/go.mod", "go/cmd/toolhost-gen/main.go"}},
		{LangC, []string{"my-tool.c"}, []string{"c/toolhost.h"}},
		{LangRust, []string{"Cargo.toml", "src/lib.rs"}, []string{"rust/Cargo.toml", "rust/src/lib.rs", "rust/src/json.rs"}},
		{LangAssemblyScript, []string{"index.ts"}, []string{"assemblyscript/index.ts", "assemblyscript/json.ts", "assemblyscript/package.json"}},
		{LangD, []string{"tool.d"}, []string{"d/toolhost.d", "d/imports.txt"}},
	}
	if len(tests) != len(Langs()) {
		t.Fatalf("the table covers %d languages; New supports %d", len(tests), len(Langs()))
	}
	for _, tt := range tests {
		t.Run(string(tt.lang), func(t *testing.T) {
			t.Parallel()
			cfg := t.TempDir()
			dir, err := New(cfg, "my-tool", tt.lang)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range tt.files {
				b, err := os.ReadFile(filepath.Join(dir, f))
				if err != nil {
					t.Errorf("scaffold lacks %s: %v", f, err)
					continue
				}
				if strings.Contains(string(b), "{{") || !strings.Contains(string(b), "my-tool") {
					t.Errorf("%s is not rendered with the tool's name:\n%s", f, b)
				}
			}
			for _, f := range tt.sdk {
				if _, err := os.Stat(filepath.Join(cfg, SourcesDir, sdkDir, f)); err != nil {
					t.Errorf("vendored SDK lacks %s: %v", f, err)
				}
			}
			if l, ok := detect(dir); !ok || l.lang != tt.lang {
				t.Errorf("Build would take the scaffold for %q, want %q", l.lang, tt.lang)
			}
		})
	}
}

func TestBuildSourceRefusesAFolderWithoutASource(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("notes"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := BuildSource(context.Background(), dir, t.TempDir(), filepath.Join(t.TempDir(), "x.wasm"))
	if err == nil || !strings.Contains(err.Error(), "no tool source") {
		t.Errorf("err = %v, want it to say there is no tool source", err)
	}
}

func TestAMissingToolchainSaysWhatToInstall(t *testing.T) {
	t.Parallel()
	nothing := func(name string) (string, error) { return "", exec.ErrNotFound }
	want := map[Lang][]string{
		LangGo:             {"the go command", "go.dev/dl"},
		LangC:              {"clang", "apt-get install clang-14 lld-14 wasi-libc libclang-rt-14-dev-wasm32"},
		LangRust:           {"rustc", "apt-get install rustc libstd-rust-dev-wasm32", "rustup target add wasm32-wasip1"},
		LangAssemblyScript: {"node", "apt-get install nodejs npm"},
		LangD:              {"ldc2", "apt-get install ldc lld-14"},
	}
	for _, l := range languages {
		_, err := l.toolchain(context.Background(), nothing)
		var te *ToolchainError
		if !errors.As(err, &te) || te.Lang != l.lang {
			t.Errorf("%s: err = %T %v, want a *ToolchainError", l.lang, err, err)
			continue
		}
		for _, w := range want[l.lang] {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q does not say %q", l.lang, err, w)
			}
		}
	}
}

func TestRustBuildsForTheFirstWasmTargetItsRustcHas(t *testing.T) {
	if goruntime.GOOS == "windows" {
		t.Skip("the fake rustc is a shell script")
	}
	tests := []struct {
		name    string
		targets []string // standard libraries in the fake sysroot
		want    string   // "" when none fits
	}{
		{"wasm32-unknown-unknown is preferred: the smallest modules", []string{"wasm32-wasip1", "wasm32-unknown-unknown"}, "wasm32-unknown-unknown"},
		{"rustup's wasm32-wasip1 is used alone", []string{"wasm32-wasip1"}, "wasm32-wasip1"},
		{"Debian's older wasm32-wasi name is used alone", []string{"wasm32-wasi"}, "wasm32-wasi"},
		{"a rustc without a wasm target is reported with the remedy", []string{"x86_64-unknown-linux-gnu"}, ""},
	}
	// The fake compilers are written before the test runs in parallel: a
	// file open for writing when another test forks stays open in that
	// child until it executes, and running the file then fails with "text
	// file busy" (golang/go#22315).
	fakes := make([]string, len(tests))
	for i, tt := range tests {
		sysroot := t.TempDir()
		for _, target := range tt.targets {
			if err := os.MkdirAll(filepath.Join(sysroot, "lib", "rustlib", target, "lib"), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		fakes[i] = filepath.Join(t.TempDir(), "rustc")
		script := "#!/bin/sh\ncase \"$1\" in --print) echo '" + sysroot + "' ;; *) echo 'rustc 1.99.0 (fake)' ;; esac\n"
		if err := os.WriteFile(fakes[i], []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Parallel()
	for i, tt := range tests {
		rustc := fakes[i]
		look := func(name string) (string, error) {
			if name == "rustc" {
				return rustc, nil
			}
			return "", exec.ErrNotFound
		}
		tc, err := rustToolchain(context.Background(), look)
		switch {
		case tt.want == "":
			if !strings.Contains(errString(err), "a rustc with a wasm target") || !strings.Contains(errString(err), "rustup target add") {
				t.Errorf("%s: err = %v", tt.name, err)
			}
		case err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tc.target != tt.want || tc.path != rustc:
			t.Errorf("%s: %s for %s, want %s for %s", tt.name, tc.path, tc.target, rustc, tt.want)
		}
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
