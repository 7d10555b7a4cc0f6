// Package session keeps per-session state — permission approvals, file read
// stamps, todo lists, wasm tool state, agent transcripts — behind one small
// interface, Store, with two implementations: Memory (a process's own
// state, the default when a host is built without a store) and Bolt (an
// embedded bbolt database in the data directory, shared by every toolhost
// process using it). A store shared by several machines — pgstore, in
// PostgreSQL — implements the same interface and proves it with the same
// conformance suite, runtime/session/sessiontest.
//
// Two optional interfaces sit beside Store, as ReadFileFS sits beside
// fs.FS: Notifier (wake a waiter in another process sharing the store;
// Memory within its process, pgstore across replicas with LISTEN/NOTIFY)
// and Pinger (is a remote store reachable now; for readiness probes).
//
// # Why the interface is this small
//
// Store has five methods — Get, Update, List, DeleteSession, Close — over
// opaque bytes addressed by (session, namespace, key). Put and Delete are
// functions on top of Update, as io/fs builds ReadFile on Open. The typed
// state lives with its owner, not here: approvals in runtime/permission,
// read stamps and todos in builtins, tool state in hostfns, transcripts in
// agent. Each owner chooses its namespace and encoding (usually JSON), so
// this package imports nothing from toolhost, a new kind of state needs no
// change here, and a new backend (a shared SQL store) implements five
// methods instead of one per kind of state. Everything a caller needs to be
// safe — read-modify-write without lost updates, listing a namespace for
// transcripts and pending requests, forgetting a session — is one of the
// five.
//
// Live waits (a permission request blocked on a person, an MCP call parked
// on a question) hold goroutines and channels and stay in their process;
// what they decide is written through the store.
//
// # Why bbolt, and why it closes when idle
//
// bbolt is pure Go (no cgo, so the binary stays static), transactional, and
// its file lock makes it safe when several toolhost processes share one
// data directory. bbolt holds an exclusive lock for as long as a database is
// open, so a long-running host (the MCP server) that kept it open would lock
// out every `toolhost call --session S` run beside it; reopening for every
// transaction instead cost a busy MCP server a fifth of its CPU. So Bolt
// stays open while transactions keep coming and closes after a short idle
// time (Bolt.IdleClose). Successive `toolhost call --session S` invocations
// therefore behave like one agent session.
//
// Layout: one top-level bucket per session id, one nested bucket per
// namespace ("permission", "filetime", "todo", "wasm:<tool>", ...), keys and
// values as the owner of the namespace chooses. Keys that bbolt cannot hold
// as they are (the empty key) are stored with a NUL prefix; see encodeKey.
//
// This package imports nothing else from toolhost.
package session
