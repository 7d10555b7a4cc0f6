// Package toolbuild scaffolds and builds wasm tools from source: `toolhost
// tool new` (templates per language, a vendored copy of the guest SDK) and
// `toolhost tool build` (finding each language's toolchain — Go, C with
// clang and wasi-libc, Rust, AssemblyScript through npm, D with LDC — and
// compiling tools-src/<name> into tool/<name>.wasm).
//
// It is internal because it is the CLI's business, not an embedder's: a
// program that embeds toolhost loads built modules through package host.
// Loading and running modules is package wasm (plugins/wasm).
package toolbuild
