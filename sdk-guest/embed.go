// Package sdkguest embeds the guest SDKs and `toolhost tool new` templates
// of the languages whose SDK is not a Go module (C, Rust, AssemblyScript,
// D), so package toolbuild can vendor them into a project without keeping a
// second copy: go:embed cannot reach outside a package's directory, so the
// files are embedded here, where they live. The Go SDK is its own module
// (sdk-guest/go) and cannot be embedded from this one; plugins keeps a
// checked copy of it.
package sdkguest

import "embed"

// FS holds, per language directory, the SDK files an author's project
// needs (listed in SDKFiles) and the template/ folder of `toolhost tool
// new`.
//
//go:embed c/toolhost.h
//go:embed rust/Cargo.toml rust/src/lib.rs rust/src/json.rs rust/template
//go:embed assemblyscript/index.ts assemblyscript/json.ts assemblyscript/package.json assemblyscript/template
//go:embed d/toolhost.d d/imports.txt d/template
var FS embed.FS

// Langs are the language directories in FS.
var Langs = [...]string{"c", "rust", "assemblyscript", "d"}

// SDKFiles lists the SDK files of a language directory that are vendored
// into a project's tools-src/.sdk/<lang>, relative to that directory.
func SDKFiles(lang string) []string {
	switch lang {
	case "c":
		return []string{"toolhost.h"}
	case "rust":
		return []string{"Cargo.toml", "src/lib.rs", "src/json.rs"}
	case "assemblyscript":
		return []string{"index.ts", "json.ts", "package.json"}
	case "d":
		return []string{"toolhost.d", "imports.txt"}
	}
	return nil
}
