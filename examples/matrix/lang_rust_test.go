package matrix

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
)

// rustLang builds examples/rust-words with a bare rustc, as cargo would:
// the SDK as an rlib, then the example as a cdylib linked against it.
var rustLang = language{
	name:    "rust",
	sources: []string{"sdk-guest/rust/src", "examples/rust-words/src", "examples/matrix/lang_rust_test.go"},
	install: "apt-get install -y rustc libstd-rust-dev-wasm32 lld-14 (or: rustup target add wasm32-unknown-unknown)",
	toolchain: func(ctx context.Context) (string, error) {
		rustc, err := findRustc(ctx)
		if err != nil {
			return "", err
		}
		v, err := output(ctx, rustc, "--version")
		return rustc + " " + v, err
	},
	build: func(ctx context.Context, out string) error {
		return rustBuild(ctx, abs("sdk-guest/rust/src/lib.rs"), "words", abs("examples/rust-words/src/lib.rs"), out)
	},
}

// rustBuild builds the crate whose root is src, against the SDK whose
// root is sdk, into the module out.
func rustBuild(ctx context.Context, sdk, crate, src, out string) error {
	rustc, err := findRustc(ctx)
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "toolhost-rust-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	lib := filepath.Join(dir, "libtoolhost.rlib")
	common := []string{"--edition", "2021", "--target", "wasm32-unknown-unknown", "-C", "opt-level=s"}
	if err := run(ctx, dir, nil, rustc, append(common, "--crate-type", "rlib", "--crate-name", "toolhost", "-o", lib, sdk)...); err != nil {
		return err
	}
	return run(ctx, dir, nil, rustc, append(common, "--crate-type", "cdylib", "--crate-name", crate,
		"-C", "strip=symbols", "-C", "lto", "--extern", "toolhost="+lib, "-o", out, src)...)
}

// findRustc returns a rustc that has the wasm32-unknown-unknown standard
// library: $TOOLHOST_RUSTC, Debian's /usr/bin/rustc (which rustup's rustc
// may shadow in PATH without the target), or the one in PATH.
func findRustc(ctx context.Context) (string, error) {
	candidates := []string{os.Getenv("TOOLHOST_RUSTC"), "/usr/bin/rustc", "rustc"}
	for _, c := range candidates {
		if c == "" {
			continue
		}
		path, err := lookPath(c)
		if err != nil {
			continue
		}
		sysroot, err := output(ctx, path, "--print", "sysroot")
		if err != nil {
			continue
		}
		if _, err := os.Stat(filepath.Join(sysroot, "lib", "rustlib", "wasm32-unknown-unknown", "lib")); err != nil {
			continue
		}
		return path, nil
	}
	return "", fmt.Errorf("%w: no rustc with the wasm32-unknown-unknown standard library", errMissing)
}
