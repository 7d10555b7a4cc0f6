package matrix

import (
	"context"
	"fmt"
)

// goLang builds the Go member of the matrix (testdata/go-words, written
// with sdk-guest/go) as a WASI reactor; it is the baseline the other
// languages are compared with.
var goLang = language{
	name:    "go",
	sources: []string{"sdk-guest/go", "examples/matrix/testdata/go-words", "examples/matrix/lang_go_test.go"},
	toolchain: func(ctx context.Context) (string, error) {
		gobin, err := lookPath("go")
		if err != nil {
			return "", fmt.Errorf("%w; install the Go toolchain (go.dev/dl)", err)
		}
		return output(ctx, gobin, "version")
	},
	build: func(ctx context.Context, out string) error {
		return run(ctx, abs("examples/matrix/testdata/go-words"), []string{"GOOS=wasip1", "GOARCH=wasm", "GOWORK=off"},
			"go", "build", "-buildmode=c-shared", "-trimpath", "-o", out, ".")
	},
}
