// Package lsp runs language servers for the edit tools, so that after an
// edit the model sees the errors the change introduced, as OpenCode shows
// them.
//
// A Manager (manager.go) keeps one server process per project root and
// server name, started on the first change of a file it serves and kept
// until Close; the servers in effect come from config.LSPConfig (the
// built-in table, less what the config disables, plus what it adds). The
// client (client.go) is a small JSON-RPC 2.0 over stdio with LSP's
// Content-Length framing, written by hand: the edit tools need only
// initialize, didOpen/didChange/didClose, didChangeWatchedFiles and the
// publishDiagnostics notification, and the Go LSP libraries bring a large
// protocol surface (and, for gopls' own, an internal API) for that.
//
// Nothing here may fail or stall an edit: every wait is bounded
// (DefaultWait after a change, DefaultStartTimeout for a start), a server
// that cannot start or crashes becomes one note in the edit's output, and
// a built-in server whose program is not on PATH is simply not used.
//
// The Manager implements runtime.Diagnoser; the host hands it to the
// registry, which puts it in every call's runtime.Context. It must not
// import builtins, host or any front end.
package lsp
