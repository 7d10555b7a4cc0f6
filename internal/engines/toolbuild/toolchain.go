package toolbuild

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	sdkguest "github.com/toolhost/toolhost/sdk-guest"
)

// ToolchainError reports that the toolchain a language's tools build with
// is not installed (or, for AssemblyScript, could not be installed), and
// what to install.
type ToolchainError struct {
	Lang    Lang
	Missing string // what was looked for, e.g. "ldc2"
	Install string // the remedy, e.g. "apt-get install ldc lld-14"
	Err     error  // the cause, when there is more to say than "not found"
}

func (e *ToolchainError) Error() string {
	msg := fmt.Sprintf("%s tools need %s, which is not installed; install it: %s", e.Lang, e.Missing, e.Install)
	if e.Err != nil {
		msg += "\n" + e.Err.Error()
	}
	return msg
}

func (e *ToolchainError) Unwrap() error { return e.Err }

// The remedies ToolchainError gives, per language. Debian package names:
// CI installs exactly these.
const (
	installGo   = "the Go toolchain, 1.24 or later (go.dev/dl)"
	installC    = "apt-get install clang-14 lld-14 wasi-libc libclang-rt-14-dev-wasm32"
	installRust = "apt-get install rustc libstd-rust-dev-wasm32 lld-14, or with rustup: rustup target add wasm32-wasip1"
	installAS   = "Node.js and npm (apt-get install nodejs npm); toolhost installs the AssemblyScript compiler with npm on first use"
	installD    = "apt-get install ldc lld-14"
)

// Toolchain finds the toolchain lang's tools build with and returns a line
// naming it and its version (a build cache can key on it). For
// AssemblyScript it also installs the compiler's pinned npm packages, once
// per machine. A missing toolchain is a *ToolchainError.
func Toolchain(ctx context.Context, lang Lang) (string, error) {
	l, ok := languageOf(lang)
	if !ok {
		return "", fmt.Errorf("language %q is not supported; choose %s", lang, langList())
	}
	tc, err := l.toolchain(ctx, exec.LookPath)
	if err != nil {
		return "", err
	}
	return tc.version, nil
}

// FindToolchain is Toolchain without side effects, for reports such as
// `toolhost doctor`: for AssemblyScript it says whether the compiler's npm
// packages are installed yet instead of installing them.
func FindToolchain(ctx context.Context, lang Lang) (string, error) {
	if lang != LangAssemblyScript {
		return Toolchain(ctx, lang)
	}
	node, ok := first(exec.LookPath, "node", "nodejs")
	if !ok {
		return "", &ToolchainError{Lang: LangAssemblyScript, Missing: "node", Install: installAS}
	}
	if _, ok := first(exec.LookPath, "npm"); !ok {
		return "", &ToolchainError{Lang: LangAssemblyScript, Missing: "npm", Install: installAS}
	}
	pkg, err := sdkguest.FS.ReadFile("assemblyscript/package.json")
	if err != nil {
		return "", err
	}
	v := versionOf(ctx, node, "--version")
	if dir := npmPackagesDir(pkg); exists(filepath.Join(dir, ascPath)) {
		return v + " " + dir, nil
	}
	return v + " (the AssemblyScript compiler is installed with npm on the first build)", nil
}

// lookFunc finds a program as exec.LookPath does; tests pass one that
// finds nothing.
type lookFunc func(string) (string, error)

// toolchain is a language's compiler, found.
type toolchain struct {
	path    string // the compiler (node for AssemblyScript)
	version string // its name and version
	// target is the wasm target Rust builds for: the first whose standard
	// library this rustc has.
	target string
	// wasmLD is LLVM's wasm linker, for D.
	wasmLD string
	// nodeModules is the folder whose node_modules holds asc and the PDK.
	nodeModules string
}

// first returns the first of names look finds.
func first(look lookFunc, names ...string) (string, bool) {
	for _, n := range names {
		if n == "" {
			continue
		}
		if p, err := look(n); err == nil {
			return p, true
		}
	}
	return "", false
}

// versionOf runs the program with args and returns the first line it
// prints.
func versionOf(ctx context.Context, path string, args ...string) string {
	out, err := exec.CommandContext(ctx, path, args...).Output()
	if err != nil {
		return path
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return path + " " + line
}

func goToolchain(ctx context.Context, look lookFunc) (*toolchain, error) {
	gobin, ok := first(look, "go")
	if !ok {
		return nil, &ToolchainError{Lang: LangGo, Missing: "the go command", Install: installGo}
	}
	return &toolchain{path: gobin, version: versionOf(ctx, gobin, "version")}, nil
}

func cToolchain(ctx context.Context, look lookFunc) (*toolchain, error) {
	clang, ok := first(look, "clang-14", "clang")
	if !ok {
		return nil, &ToolchainError{Lang: LangC, Missing: "clang", Install: installC}
	}
	// clang prints the bare name back when the file is not in the
	// sysroot: wasi-libc is missing (a clang from a wasi-sdk has its own).
	out, err := exec.CommandContext(ctx, clang, "--target=wasm32-wasi", "-print-file-name=libc.a").Output()
	if err != nil || !filepath.IsAbs(strings.TrimSpace(string(out))) {
		return nil, &ToolchainError{Lang: LangC, Missing: "wasi-libc (libc.a for wasm32-wasi)", Install: installC}
	}
	return &toolchain{path: clang, version: versionOf(ctx, clang, "--version")}, nil
}

// rustTargets are the wasm targets a tool builds for, best first:
// wasm32-unknown-unknown makes the smallest modules; wasm32-wasip1 is what
// rustup offers today and wasm32-wasi its older name (Debian's). The SDK
// uses nothing of WASI, so all three work.
var rustTargets = []string{"wasm32-unknown-unknown", "wasm32-wasip1", "wasm32-wasi"}

// rustToolchain finds a rustc with a wasm standard library:
// $TOOLHOST_RUSTC, Debian's /usr/bin/rustc (rustup's proxy may shadow it in
// PATH without any wasm target), or the one in PATH.
func rustToolchain(ctx context.Context, look lookFunc) (*toolchain, error) {
	found := false
	for _, c := range []string{os.Getenv("TOOLHOST_RUSTC"), "/usr/bin/rustc", "rustc"} {
		rustc, ok := first(look, c)
		if !ok {
			continue
		}
		found = true
		out, err := exec.CommandContext(ctx, rustc, "--print", "sysroot").Output()
		if err != nil {
			continue
		}
		sysroot := strings.TrimSpace(string(out))
		for _, target := range rustTargets {
			if exists(filepath.Join(sysroot, "lib", "rustlib", target, "lib")) {
				return &toolchain{path: rustc, target: target, version: versionOf(ctx, rustc, "--version") + " " + target}, nil
			}
		}
	}
	if found {
		return nil, &ToolchainError{Lang: LangRust, Missing: "a rustc with a wasm target (" + strings.Join(rustTargets, ", ") + ")", Install: installRust}
	}
	return nil, &ToolchainError{Lang: LangRust, Missing: "rustc", Install: installRust}
}

func dToolchain(ctx context.Context, look lookFunc) (*toolchain, error) {
	ldc, ok := first(look, "ldc2")
	if !ok {
		return nil, &ToolchainError{Lang: LangD, Missing: "ldc2 (LDC)", Install: installD}
	}
	// Debian installs wasm-ld as wasm-ld-14 (and in LLVM's own bin).
	ld, ok := first(look, "wasm-ld", "wasm-ld-14", "/usr/lib/llvm-14/bin/wasm-ld", "wasm-ld-15", "wasm-ld-16",
		"wasm-ld-17", "wasm-ld-18", "wasm-ld-19")
	if !ok {
		return nil, &ToolchainError{Lang: LangD, Missing: "wasm-ld (LLVM's wasm linker)", Install: installD}
	}
	return &toolchain{path: ldc, wasmLD: ld, version: versionOf(ctx, ldc, "--version")}, nil
}

// asToolchain finds node and npm and installs the AssemblyScript compiler
// and the Extism PDK, at the versions the SDK's package.json pins, into
// the user cache directory (a folder named after that file's hash): about
// 100 MB, so once per machine and SDK version rather than per project.
func asToolchain(ctx context.Context, look lookFunc) (*toolchain, error) {
	node, ok := first(look, "node", "nodejs")
	if !ok {
		return nil, &ToolchainError{Lang: LangAssemblyScript, Missing: "node", Install: installAS}
	}
	npm, ok := first(look, "npm")
	if !ok {
		return nil, &ToolchainError{Lang: LangAssemblyScript, Missing: "npm", Install: installAS}
	}
	pkg, err := sdkguest.FS.ReadFile("assemblyscript/package.json")
	if err != nil {
		return nil, err
	}
	dir, err := npmPackages(ctx, npm, pkg)
	if err != nil {
		return nil, &ToolchainError{Lang: LangAssemblyScript, Missing: "the AssemblyScript compiler's npm packages",
			Install: "make `npm install` work on this machine (a registry it can reach, or its cache)", Err: err}
	}
	return &toolchain{path: node, nodeModules: dir, version: versionOf(ctx, node, "--version") + " " + dir}, nil
}

// npmPackagesDir is where npmPackages installs package.json's
// dependencies: <cache>/toolhost/assemblyscript/<hash>.
func npmPackagesDir(pkg []byte) string {
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	sum := sha256.Sum256(pkg)
	return filepath.Join(cache, "toolhost", "assemblyscript", hex.EncodeToString(sum[:8]))
}

// ascPath is asc's entry point inside an npm prefix.
var ascPath = filepath.Join("node_modules", "assemblyscript", "bin", "asc.js")

// npmPackages installs package.json's dependencies into
// <cache>/toolhost/assemblyscript/<hash> unless they are there, and
// returns that folder.
func npmPackages(ctx context.Context, npm string, pkg []byte) (string, error) {
	dir := npmPackagesDir(pkg)
	root := filepath.Dir(dir)
	if exists(filepath.Join(dir, ascPath)) {
		return dir, nil
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", err
	}
	// Install beside the final folder and rename it into place, so a
	// concurrent or interrupted build never sees half an install.
	tmp, err := os.MkdirTemp(root, "install-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	if err := os.WriteFile(filepath.Join(tmp, "package.json"), pkg, 0o644); err != nil {
		return "", err
	}
	if err := runCmd(ctx, tmp, nil, npm, "install", "--prefix", tmp, "--no-audit", "--no-fund",
		"--prefer-offline", "--loglevel=error"); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, dir); err != nil {
		if exists(filepath.Join(dir, ascPath)) {
			return dir, nil // another build got there first
		}
		return "", fmt.Errorf("install the AssemblyScript compiler: %w", err)
	}
	return dir, nil
}
