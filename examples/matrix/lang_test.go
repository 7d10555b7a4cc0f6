package matrix

import (
	"context"
	"errors"
	"fmt"

	"github.com/toolhost/toolhost/internal/engines/toolbuild"
)

// The C, Rust, AssemblyScript and D examples are built by
// toolbuild.BuildSource, the code behind `toolhost tool build`, with the
// SDKs in sdk-guest: the matrix proves the build authors run, not a copy
// of it. Go's example is built by hand (lang_go_test.go) because
// BuildSource's `go generate` would rewrite its committed exports.
var (
	cLang    = pluginLang(toolbuild.LangC, "examples/matrix/testdata/c-words", "sdk-guest/c")
	rustLang = pluginLang(toolbuild.LangRust, "examples/rust-words", "sdk-guest/rust/src")
	asLang   = pluginLang(toolbuild.LangAssemblyScript, "examples/as-words", "sdk-guest/assemblyscript")
	dLang    = pluginLang(toolbuild.LangD, "examples/d-words", "sdk-guest/d")
)

// buildCode is the code that decides how plugins builds a module: part of
// every cache key of a module it builds.
var buildCode = []string{"internal/engines/toolbuild/build.go", "internal/engines/toolbuild/toolchain.go"}

// pluginLang is the language lang whose words example is the folder
// example and whose SDK sources are in sdk, both relative to the
// repository root.
func pluginLang(lang toolbuild.Lang, example, sdk string) language {
	return language{
		name:      string(lang),
		sources:   append([]string{sdk, example}, buildCode...),
		toolchain: func(ctx context.Context) (string, error) { return toolchain(ctx, lang) },
		build: func(ctx context.Context, out string) error {
			_, err := toolbuild.BuildSource(ctx, abs(example), abs("sdk-guest"), out)
			return err
		},
	}
}

// toolchain is toolbuild.Toolchain with a missing toolchain marked
// errMissing, so the matrix skips the language (or fails under CI=true)
// with plugins' remedy in the message.
func toolchain(ctx context.Context, lang toolbuild.Lang) (string, error) {
	v, err := toolbuild.Toolchain(ctx, lang)
	var te *toolbuild.ToolchainError
	if errors.As(err, &te) {
		return "", fmt.Errorf("%w: %v", errMissing, err)
	}
	return v, err
}
