package matrix

import (
	"context"
	"fmt"
	"os"
	"strings"
)

// cLang builds the C member of the matrix (testdata/c-words, written with
// sdk-guest/c/toolhost.h) with clang and wasi-libc, as a WASI reactor.
var cLang = language{
	name:    "c",
	sources: []string{"sdk-guest/c", "examples/matrix/testdata/c-words", "examples/matrix/lang_c_test.go"},
	install: "apt-get install -y --no-install-recommends clang-14 lld-14 wasi-libc libclang-rt-14-dev-wasm32",
	toolchain: func(ctx context.Context) (string, error) {
		clang, err := lookPath("clang-14", "clang")
		if err != nil {
			return "", err
		}
		if !hasWASILibc() {
			return "", fmt.Errorf("%w: wasi-libc (libc.a for wasm32-wasi)", errMissing)
		}
		v, err := output(ctx, clang, "--version")
		first, _, _ := strings.Cut(v, "\n")
		return first, err
	},
	build: func(ctx context.Context, out string) error {
		clang, err := lookPath("clang-14", "clang")
		if err != nil {
			return err
		}
		return run(ctx, abs("examples/matrix/testdata/c-words"), nil, clang,
			"--target=wasm32-wasi", "-O2", "-mexec-model=reactor", "-Wl,--strip-all",
			"-I", abs("sdk-guest/c"), "-o", out, "words.c")
	},
}

// hasWASILibc reports whether wasi-libc is where Debian's clang looks.
func hasWASILibc() bool {
	for _, p := range []string{"/usr/lib/wasm32-wasi/libc.a", "/usr/share/wasi-sysroot/lib/wasm32-wasi/libc.a"} {
		if _, err := os.Stat(p); err == nil {
			return true
		}
	}
	return false
}
