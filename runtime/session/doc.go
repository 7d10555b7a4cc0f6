// Package session keeps per-session state — permission approvals, file read
// stamps, todo lists, wasm tool state, transcripts — in one embedded bbolt
// database in the data directory.
//
// Why bbolt: it is pure Go (no cgo, so the binary stays static), transactional,
// and its file lock makes it safe when several toolhost processes share one
// data directory. Why open per transaction: bbolt holds an exclusive lock for
// as long as a database is open for writing, so a long-running host (the MCP
// server) would otherwise lock out every `toolhost call --session S` run
// beside it. Opening costs well under a millisecond; transactions here are
// small. Successive `toolhost call --session S` invocations therefore behave
// like one agent session.
//
// Layout: one top-level bucket per session id, one nested bucket per
// namespace ("permission", "filetime", "todo", "wasm:<tool>", ...), keys and
// values as the owner of the namespace chooses (usually JSON).
//
// This package imports nothing else from toolhost.
package session
