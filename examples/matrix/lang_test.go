package matrix

import (
	"context"
	"errors"
	"fmt"

	"github.com/toolhost/toolhost/plugins"
)

// The C, Rust, AssemblyScript and D examples are built by
// plugins.BuildSource, the code behind `toolhost tool build`, with the
// SDKs in sdk-guest: the matrix proves the build authors run, not a copy
// of it. Go's example is built by hand (lang_go_test.go) because
// BuildSource's `go generate` would rewrite its committed exports.
var (
	cLang    = pluginLang(plugins.LangC, "examples/matrix/testdata/c-words", "sdk-guest/c")
	rustLang = pluginLang(plugins.LangRust, "examples/rust-words", "sdk-guest/rust/src")
	asLang   = pluginLang(plugins.LangAssemblyScript, "examples/as-words", "sdk-guest/assemblyscript")
	dLang    = pluginLang(plugins.LangD, "examples/d-words", "sdk-guest/d")
)

// buildCode is the code that decides how plugins builds a module: part of
// every cache key of a module it builds.
var buildCode = []string{"plugins/build.go", "plugins/toolchain.go"}

// pluginLang is the language lang whose words example is the folder
// example and whose SDK sources are in sdk, both relative to the
// repository root.
func pluginLang(lang plugins.Lang, example, sdk string) language {
	return language{
		name:      string(lang),
		sources:   append([]string{sdk, example}, buildCode...),
		toolchain: func(ctx context.Context) (string, error) { return toolchain(ctx, lang) },
		build: func(ctx context.Context, out string) error {
			_, err := plugins.BuildSource(ctx, abs(example), abs("sdk-guest"), out)
			return err
		},
	}
}

// toolchain is plugins.Toolchain with a missing toolchain marked
// errMissing, so the matrix skips the language (or fails under CI=true)
// with plugins' remedy in the message.
func toolchain(ctx context.Context, lang plugins.Lang) (string, error) {
	v, err := plugins.Toolchain(ctx, lang)
	var te *plugins.ToolchainError
	if errors.As(err, &te) {
		return "", fmt.Errorf("%w: %v", errMissing, err)
	}
	return v, err
}
