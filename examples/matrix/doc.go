// Package matrix holds the language matrix: a test that builds the same
// tool set (examples/*-words: a main tool and four named tools) in every
// guest language toolhost ships an SDK for, each with its real toolchain,
// and runs one conformance suite on every module through the host —
// wasm.Engine.Discover into a runtime.Registry, and Registry.Call — so
// a language is supported when it passes exactly what the others pass:
// description, schema, execute, named tools, ask allowed and refused,
// live metadata, config, session state, a guest error, and non-ASCII text
// both ways.
//
// The languages and their toolchains (docs/languages.md has the details):
//
//   - Go: sdk-guest/go with the standard Go toolchain (always present);
//     the example lives in testdata/go-words.
//   - C: sdk-guest/c/toolhost.h with clang, lld and wasi-libc; the
//     example lives in testdata/c-words.
//   - Rust: sdk-guest/rust with a bare rustc that has the
//     wasm32-unknown-unknown standard library (Debian's rustc and
//     libstd-rust-dev-wasm32, or rustup's with the target added); no cargo,
//     no crates.
//   - AssemblyScript: sdk-guest/assemblyscript with the assemblyscript and
//     @extism/as-pdk npm packages, installed once per machine into the user
//     cache directory, keyed by the SDK's package.json.
//   - D: sdk-guest/d with LDC (-betterC, no runtime) and LLVM's wasm-ld.
//
// Every language but Go is built by toolbuild.BuildSource — the code behind
// `toolhost tool build` — so the matrix proves the build authors run.
// TestTemplatesBuildIntoWorkingTools scaffolds every language's template
// with toolbuild.New, builds it with toolbuild.Build and calls it.
//
// A language whose toolchain is missing is skipped with a message saying
// what to install, except under CI=true, where it fails: CI must prove
// every language. Modules are built once per run and cached in the temp
// directory by a hash of their sources and the toolchain's version, so a
// second run builds nothing.
//
// The package has no non-test code beyond this comment: it exists for its
// tests and benchmarks (BenchmarkLanguages: module size, cold compile,
// warm call per language).
package matrix
