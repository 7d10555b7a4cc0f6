// Package config finds toolhost's config directories, loads and merges
// toolhost.json / toolhost.jsonc files, and decodes the result strictly.
//
// Files are JSON with comments and trailing commas (JSONC), read with
// github.com/tailscale/hujson: maintained, small, and its syntax tree keeps
// the byte offset of every key and value (Standardize blanks comments
// without moving anything), so an error can name the file, line and key even
// after comments are stripped.
//
// # Where config comes from
//
// Config directories (Dirs), de-duplicated, lowest precedence first:
// $XDG_CONFIG_HOME/toolhost (default ~/.config/toolhost), every .toolhost
// directory from the worktree root down to the working directory,
// ~/.toolhost, then $TOOLHOST_CONFIG_DIR. Config files in those directories
// and at the project root are deep-merged in that order, the project root's
// right after the global directory's (Load); TOOLHOST_CONFIG_CONTENT (inline
// JSONC) is applied last, and TOOLHOST_PERMISSION is merged into
// "permission".
//
// # How sources merge
//
// Objects merge key by key, and anything else a later source sets (scalars,
// arrays, null) replaces what was there. Permission values, top-level and
// per agent, are the exception: their rules are concatenated in merge
// order, since under last-match-wins that is what makes a later file's rule
// beat an earlier one's while keeping the earlier rules for what the later
// file does not mention. Each rule's Source is "file:line" of its key, so
// the permission evaluator can explain a decision.
//
// # Untrusted projects
//
// The project's own files (the worktree root's and its .toolhost
// directories', never the user's directories even when the worktree holds
// them) come with the repository. With LoadOptions.UntrustedProject they
// keep only their deny rules (trust.go): under last-match-wins an added
// deny can only make a decision stricter, while an added allow or ask
// could loosen one, so this is exact without touching the evaluator.
// internal/confine/trust decides whether a person trusted the content.
//
// # Errors
//
// Each source is checked on its own syntax tree before anything is decoded
// (check.go): unknown keys (with a "did you mean"), wrong types, and
// invalid actions are reported at their line with their key path, as
// *Error values joined together. encoding/json cannot do this itself: it
// names no offset for an unknown field. Each source is then decoded with
// DisallowUnknownFields as a backstop, and the merged config is validated
// (validate.go) for what types cannot say, still pointing at the line that
// last set the key.
//
// # Substitution
//
// String values may use {env:VAR} (empty when unset) and {file:path} (the
// file's trimmed content; relative to the config file's directory, ~/ for
// home), as in OpenCode. A project's config could read files and variables
// into headers with them, which is one more reason its values count only
// once the project is trusted (trust.go; its deny rules count at once, and
// rule patterns are keys, never expanded). Only string values are expanded, never keys or
// numbers, so documents stay valid JSON before expansion.
//
// # Grants
//
// "wasm" entries grant capabilities to wasm and JS tools by id or file
// name, but ids are not unique across folders, so each source's "wasm"
// section is also kept apart and Config.WasmFor gives a tool only the
// entries of config files that may grant its file: your own config your
// own folders, a project's config its own tools, a path key one file
// (grants.go). Config.Wasm is the merged view, for listing.
//
// # Language servers
//
// The "lsp" key (lsp.go) has OpenCode's shape: false turns every language
// server off, an object disables, overrides or adds servers by name. The
// built-in table (BuiltinLSPServers) is data here, beside its validation,
// and LSPConfig.Resolve turns the two into the servers in effect, which
// internal/engines/lsp runs. It is the one key that is a boolean or an object, so
// the checker and the schema generator treat its type by name.
//
// # Schema
//
// schema.json, embedded and returned by Schema, is generated from Config
// with github.com/invopop/jsonschema (the library runtime.Define uses for
// tool parameters) by TestSchemaIsUpToDate, which fails when it is stale;
// run `go generate ./runtime/config` after changing a config type. Field
// comments are the schema's descriptions, so they are user documentation.
//
// This package imports only runtime/permission from toolhost.
//
// load_test.go is over 500 lines: it is the table of config files, layers and errors the loader must handle, one idea.
package config
