package matrix

import (
	"context"
	"os"
	"path/filepath"
	"strings"
)

// dLang builds examples/d-words with LDC in -betterC mode (no D runtime,
// no libc) and LLVM's wasm-ld.
var dLang = language{
	name:    "d",
	sources: []string{"sdk-guest/d", "examples/d-words", "examples/matrix/lang_d_test.go"},
	install: "apt-get install -y --no-install-recommends ldc lld-14",
	toolchain: func(ctx context.Context) (string, error) {
		ldc, err := lookPath("ldc2")
		if err != nil {
			return "", err
		}
		if _, err := wasmLD(); err != nil {
			return "", err
		}
		v, err := output(ctx, ldc, "--version")
		first, _, _ := strings.Cut(v, "\n")
		return first, err
	},
	build: func(ctx context.Context, out string) error {
		return dBuild(ctx, abs("examples/d-words"), abs("sdk-guest/d"), []string{"words.d"}, out)
	},
}

// dBuild compiles the D files in dir, with the SDK in sdk, into out.
func dBuild(ctx context.Context, dir, sdk string, files []string, out string) error {
	ld, err := wasmLD()
	if err != nil {
		return err
	}
	objs, err := os.MkdirTemp("", "toolhost-d-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(objs)
	args := []string{"-od=" + objs,
		"-mtriple=wasm32-unknown-unknown-wasm", "-betterC", "-O", "-mattr=+bulk-memory",
		"--linker=" + ld, "-L--no-entry", "-L--strip-all",
		"-L--allow-undefined-file=" + filepath.Join(sdk, "imports.txt"),
		"-I" + sdk, "-of=" + out}
	args = append(args, files...)
	return run(ctx, dir, nil, "ldc2", append(args, filepath.Join(sdk, "toolhost.d"))...)
}

// wasmLD finds LLVM's wasm linker under the names Debian and others give it.
func wasmLD() (string, error) {
	return lookPath("wasm-ld", "wasm-ld-14", "/usr/lib/llvm-14/bin/wasm-ld", "wasm-ld-15", "wasm-ld-16", "wasm-ld-17", "wasm-ld-18", "wasm-ld-19")
}
