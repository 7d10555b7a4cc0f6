// Package trust decides whether a project's own config may run programs,
// grant capabilities or loosen rules: what VS Code's Workspace Trust,
// direnv's `allow` and mise's `trust` do.
//
// A cloned repository brings its toolhost.json, .toolhost/ and .opencode/
// with it, and a program that bash runs can rewrite them; either way the
// content did not come from the person running toolhost. So the project's
// content is trusted by hash, not by path: Scan lists every file that can
// change what the host runs or allows (the project's config files, the
// tool/, tools/, plugin/ and plugins/ folders of its .toolhost
// directories, its .opencode tool folders and toolhost.lock) and digests
// their names and contents in a fixed order. A person's `toolhost trust`
// (or the inbox page's button) stores the digest under the worktree in the
// data directory (Store); the host trusts the project when the digest it
// computes at start is one of those stored. Editing, adding, removing or
// renaming any of those files changes the digest, so a tool that rewrites
// the config cannot widen its own rules: the next host runs untrusted
// until a person looks again.
//
// Untrusted, the host runs on the user's own config: runtime/config keeps
// only the project's deny rules (tightening needs no trust; see
// config.LoadOptions.UntrustedProject), MCP and language servers the
// project names do not start, and its tool files are listed but answer a
// call with the command that trusts them.
//
// Failure is closed: a store that cannot be read or parsed, a project too
// large to hash, or a file that cannot be read all mean "not trusted",
// with an error that says how to fix it. Symbolic links are hashed by
// their text and followed, inside the worktree or out of it, as the
// loaders follow them: a module or tool folder that changes behind a
// trusted link needs trust again. A link to a fifo or device is recorded
// by type, never opened.
package trust
