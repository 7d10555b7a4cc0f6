// Package session keeps per-session state — permission approvals, file read
// stamps, todo lists, wasm tool state, transcripts — in one embedded bbolt
// database in the data directory.
//
// Why bbolt: it is pure Go (no cgo, so the binary stays static), transactional,
// and its file lock makes it safe when several toolhost processes share one
// data directory. Why close when idle: bbolt holds an exclusive lock for as
// long as a database is open, so a long-running host (the MCP server) that
// kept it open would lock out every `toolhost call --session S` run beside
// it; reopening for every transaction instead cost a busy MCP server a
// fifth of its CPU. So the store stays open while transactions keep coming
// and closes after a short idle time (Store.IdleClose). Successive
// `toolhost call --session S` invocations therefore behave like one agent
// session.
//
// Layout: one top-level bucket per session id, one nested bucket per
// namespace ("permission", "filetime", "todo", "wasm:<tool>", ...), keys and
// values as the owner of the namespace chooses (usually JSON).
//
// This package imports nothing else from toolhost.
package session
