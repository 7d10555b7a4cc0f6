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
// This package imports runtime and its subpackages, never plugins or front
// ends.
package builtins
