package toolbuild

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// language is what toolhost knows about one guest language: its template
// (templates/<lang>), how to recognise a source written in it, where its
// toolchain is, and how to build a source into a module.
type language struct {
	lang Lang
	// named is the template file (without .tmpl) New writes as
	// <name><ext> instead: C's one file is named after the tool.
	named string
	// is reports whether dir holds a source in this language.
	is func(dir string) bool
	// toolchain finds the compiler, with look standing for exec.LookPath.
	toolchain func(ctx context.Context, look lookFunc) (*toolchain, error)
	// build builds s into the module out.
	build func(ctx context.Context, tc *toolchain, s source, out string) error
}

// languages are the supported languages, in the order Langs lists them.
var languages = []language{
	{lang: LangGo, is: hasFile("go.mod"), toolchain: goToolchain, build: buildGo},
	{lang: LangC, named: "tool.c", is: hasGlob("*.c"), toolchain: cToolchain, build: buildC},
	{lang: LangRust, is: hasFile("Cargo.toml"), toolchain: rustToolchain, build: buildRust},
	{lang: LangAssemblyScript, is: hasFile("index.ts"), toolchain: asToolchain, build: buildAS},
	{lang: LangD, is: hasGlob("*.d"), toolchain: dToolchain, build: buildD},
}

// detectOrder is the order detect tries languages in: marker files
// before source globs, so a Rust crate or a Go module that also holds a
// .c file is still Rust or Go.
var detectOrder = []Lang{LangGo, LangRust, LangAssemblyScript, LangD, LangC}

func languageOf(l Lang) (language, bool) {
	for _, x := range languages {
		if x.lang == l {
			return x, true
		}
	}
	return language{}, false
}

// detect returns the language of the source in dir.
func detect(dir string) (language, bool) {
	for _, name := range detectOrder {
		if l, _ := languageOf(name); l.is(dir) {
			return l, true
		}
	}
	return language{}, false
}

func hasFile(name string) func(string) bool {
	return func(dir string) bool { return exists(filepath.Join(dir, name)) }
}

func hasGlob(pattern string) func(string) bool {
	return func(dir string) bool {
		m, _ := filepath.Glob(filepath.Join(dir, pattern))
		return len(m) > 0
	}
}

// source is one tool source to build.
type source struct {
	name string // the tool's name: its folder's name
	dir  string // its folder
	sdk  string // the folder holding the guest SDKs, one folder per language
}

// Build builds every tool source in configDir/tools-src, as BuildTools
// with no options: every tool, up-to-date ones skipped, no progress.
func Build(ctx context.Context, configDir string) ([]BuildResult, error) {
	return BuildTools(ctx, configDir, Options{})
}

// BuildSource builds the tool source in dir into the module out and
// returns its language, told by the files in dir: go.mod (Go), Cargo.toml
// (Rust), index.ts (AssemblyScript), *.d (D) or *.c (C). sdk is the
// folder holding the guest SDKs, one folder per language, as
// tools-src/.sdk or this repository's sdk-guest. The tool's name is dir's
// base name.
//
//   - Go: `go generate ./...` (toolhost-gen writes the exports), then
//     GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared.
//   - C: clang (clang-14 preferred) --target=wasm32-wasi as a reactor, with
//     sdk/c on the include path.
//   - Rust: a bare rustc, as cargo would: sdk/rust as an rlib, then
//     src/lib.rs as a cdylib (the crate is the name with - as _) for
//     wasm32-unknown-unknown, else wasm32-wasip1 or wasm32-wasi, whichever
//     standard library the rustc has. No crates are fetched.
//   - AssemblyScript: asc, from the npm packages pinned in
//     sdk/assemblyscript/package.json (installed once per machine into the
//     user cache directory), on index.ts, with the SDK's abort.
//   - D: ldc2 -betterC for wasm32-unknown-unknown and LLVM's wasm-ld, with
//     sdk/d/imports.txt as the only allowed imports.
//
// A missing toolchain is a *ToolchainError saying what to install.
func BuildSource(ctx context.Context, dir, sdk, out string) (Lang, error) {
	l, ok := detect(dir)
	if !ok {
		return "", fmt.Errorf("build %s: no tool source (go.mod, Cargo.toml, index.ts, *.d or *.c)", dir)
	}
	tc, err := l.toolchain(ctx, exec.LookPath)
	if err != nil {
		return l.lang, err
	}
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return l.lang, err
	}
	absSDK, err := filepath.Abs(sdk)
	if err != nil {
		return l.lang, err
	}
	absOut, err := filepath.Abs(out)
	if err != nil {
		return l.lang, err
	}
	return l.lang, l.build(ctx, tc, source{name: filepath.Base(absDir), dir: absDir, sdk: absSDK}, absOut)
}

// compile builds one source with a toolchain already found, writing the
// module to tmp (a .wasm path on out's file system, outside the watched
// tool folders), preparing it there (prepare, when set: the CLI embeds the
// tool list and warms the compilation cache), and renaming it to out only
// when both succeeded, so a failed build never replaces or truncates the
// module built before.
func compile(ctx context.Context, l language, tc *toolchain, dir, sdk, out, tmp string, prepare func(context.Context, string) error) error {
	_ = os.Remove(tmp)
	if err := l.build(ctx, tc, source{name: filepath.Base(dir), dir: dir, sdk: sdk}, tmp); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	if prepare != nil {
		if err := prepare(ctx, tmp); err != nil {
			_ = os.Remove(tmp)
			return err
		}
	}
	if err := os.Rename(tmp, out); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("install %s: %w", out, err)
	}
	return nil
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

func buildGo(ctx context.Context, tc *toolchain, s source, out string) error {
	// GOFLAGS=-mod=mod lets the first build write go.sum for the vendored
	// SDK; -buildvcs=false because a tool source inside a project that is
	// not a clean git checkout would otherwise fail to build.
	native := []string{"GOWORK=off", "GOFLAGS=-mod=mod -buildvcs=false"}
	if err := runCmd(ctx, s.dir, native, tc.path, "generate", "./..."); err != nil {
		return err
	}
	return runCmd(ctx, s.dir, append(native, "GOOS=wasip1", "GOARCH=wasm"), tc.path, "build", "-buildmode=c-shared", "-o", out, ".")
}

func buildC(ctx context.Context, tc *toolchain, s source, out string) error {
	srcs, _ := filepath.Glob(filepath.Join(s.dir, "*.c"))
	args := append([]string{"--target=wasm32-wasi", "-O2", "-mexec-model=reactor", "-Wl,--strip-all",
		"-I", filepath.Join(s.sdk, "c"), "-o", out}, srcs...)
	return runCmd(ctx, s.dir, nil, tc.path, args...)
}

// cargoEdition finds the edition a Cargo.toml asks for.
var cargoEdition = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^\s*edition\s*=\s*"(\d{4})"`) })

func buildRust(ctx context.Context, tc *toolchain, s source, out string) error {
	edition := "2021"
	if manifest, err := os.ReadFile(filepath.Join(s.dir, "Cargo.toml")); err == nil {
		if m := cargoEdition().FindSubmatch(manifest); m != nil {
			edition = string(m[1])
		}
	}
	tmp, err := os.MkdirTemp("", "toolhost-rust-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	// The SDK is edition 2021 whatever the tool's edition: its Cargo.toml
	// says so, and editions mix freely across crates.
	lib := filepath.Join(tmp, "libtoolhost.rlib")
	common := []string{"--target", tc.target, "-C", "opt-level=s"}
	if err := runCmd(ctx, tmp, nil, tc.path, append(common, "--edition", "2021", "--crate-type", "rlib",
		"--crate-name", "toolhost", "-o", lib, filepath.Join(s.sdk, "rust", "src", "lib.rs"))...); err != nil {
		return err
	}
	return runCmd(ctx, tmp, nil, tc.path, append(common, "--edition", edition, "--crate-type", "cdylib",
		"--crate-name", strings.ReplaceAll(s.name, "-", "_"), "-C", "strip=symbols", "-C", "lto",
		"--extern", "toolhost="+lib, "-o", out, filepath.Join(s.dir, "src", "lib.rs"))...)
}

func buildAS(ctx context.Context, tc *toolchain, s source, out string) error {
	// --use abort=… replaces the env.abort import asc emits (the host has
	// none) with the SDK's. It is a path relative to the entry file, which
	// is why asc runs in the tool's folder.
	rel, err := filepath.Rel(s.dir, filepath.Join(s.sdk, "assemblyscript"))
	if err != nil {
		return err
	}
	modules := filepath.Join(tc.nodeModules, "node_modules")
	return runCmd(ctx, s.dir, nil, tc.path, filepath.Join(modules, "assemblyscript", "bin", "asc.js"),
		"index.ts", "--path", modules, "-O3", "--shrinkLevel", "1",
		"--use", "abort="+filepath.ToSlash(rel)+"/index/abort", "-o", out)
}

func buildD(ctx context.Context, tc *toolchain, s source, out string) error {
	files, _ := filepath.Glob(filepath.Join(s.dir, "*.d"))
	if len(files) == 0 {
		return errors.New("no .d files")
	}
	objs, err := os.MkdirTemp("", "toolhost-d-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(objs)
	sdk := filepath.Join(s.sdk, "d")
	// -mattr=+bulk-memory lowers array copies to memory.copy (there is no
	// libc memcpy); the imports file makes any other undefined symbol fail
	// the link instead of becoming an import the host refuses.
	args := []string{"-od=" + objs,
		"-mtriple=wasm32-unknown-unknown-wasm", "-betterC", "-O", "-mattr=+bulk-memory",
		"--linker=" + tc.wasmLD, "-L--no-entry", "-L--strip-all",
		"-L--allow-undefined-file=" + filepath.Join(sdk, "imports.txt"),
		"-I" + sdk, "-of=" + out}
	args = append(args, files...)
	return runCmd(ctx, s.dir, nil, tc.path, append(args, filepath.Join(sdk, "toolhost.d"))...)
}
