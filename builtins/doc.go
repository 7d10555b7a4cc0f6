// Package builtins holds toolhost's native tools: read, write, edit,
// multiedit, apply_patch, glob, grep, list, bash, webfetch, todowrite,
// todoread, question, skill, batch and invalid. They follow the behaviour
// of OpenCode's tools (packages/opencode/src/tool) so agents tuned for it
// work unchanged, and go further where it was weak: atomic writes, per-file
// locks, a native parallel grep, bash parsed with a real shell parser.
//
// One tool per file, with its model-facing description in a .txt file
// beside it, embedded; where a description states a limit it is rendered
// from the constant the code enforces. Arguments are a tagged Go struct that
// produces both the JSON Schema and the decoding (runtime.Define).
//
// Cross-cutting concerns — argument validation, output truncation, hooks,
// panic recovery, logging — are the runtime wrapper's job and are never
// re-implemented here. Tools ask permission through runtime.Context.Ask and
// return its error unchanged.
//
// Libraries: mvdan.cc/sh/v3/syntax parses bash (a real POSIX/bash parser in
// Go, where OpenCode uses tree-sitter) and mvdan.cc/sh/v3/expand expands
// path arguments as the shell would; go.yaml.in/yaml/v4 reads skill front
// matter; github.com/bmatcuk/doublestar/v4
// matches ** globs; github.com/pmezard/go-difflib aligns lines for the
// unified diffs shown to people; github.com/JohannesKaufmann/html-to-markdown
// converts fetched pages. Hunks are formatted here because go-difflib omits
// the "\ No newline at end of file" marker.
//
// grep, glob and list search with package internal/engines/search: its parallel
// walk honouring .gitignore (Walk), ripgrep's path filter (MatchGlob) and
// its regular-expression search (Compile, Grep). Each tool's file here
// holds only the tool — its arguments, permission, output and description —
// and links.go the rule for symbolic links they hand the walk
// (search.LinkPolicy).
//
// Symbolic links are judged by where they lead. glob, grep and list
// follow a link out of the project only when external_directory already
// allows its target (links.go), never asking per link; the writing tools
// fix the resolved path when they check it and write through an os.Root
// (atomic.go), so a directory swapped for a link mid-call cannot redirect
// the bytes. The hostile cases are in testdata/symlinks.json.
//
// One process-wide map is a deliberate exception to "no mutable globals":
// the per-file locks in filelock.go (every tool in the process must share
// one lock per file, or concurrent edits lose updates). Read stamps and
// todo lists live in the call's session store (runtime.Context.Store),
// which a Registry always provides, in memory when the host has no other.
//
// Files over 500 lines, and why they stay whole: replacers.go keeps
// OpenCode's nine edit replacers in their order, side by side, so they can
// be compared with the original one for one; lsp.go is one LSP client
// (framing, lifecycle, diagnostics) for one purpose; read.go is the read
// tool with its paging, binary detection and attachments, whose helpers
// have no other user; bash_test.go holds the tool's process tests (timeouts,
// cancellation, output), one idea with many cases.
//
// bash decides what a command needs permission for with package
// internal/confine/shellperm (the analysis of what bash will execute, which the
// CLI's `permissions explain bash` asks too); this package runs the
// command, in the sandbox.
//
// This package imports runtime and its subpackages, never plugins or front
// ends.
package builtins
