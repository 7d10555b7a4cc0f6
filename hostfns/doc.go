// Package hostfns implements the host functions toolhost gives wasm tools
// in the Extism namespace extism:host/user — ask, metadata, log, state_get,
// state_set — and the Extism kernel functions that reach the world: the
// guarded http_request (with http_status_code, http_headers), log_trace …
// log_error and get_log_level, which log through the call's slog logger
// at the level it keeps, not through a process-wide setting. The contract
// is docs/abi.md ("toolhost-abi 1"); names.go holds every name the guest
// sees, one file per function family documents it.
//
// Host functions learn which call they serve from the context.Context the
// call runs with (WithCall): wazero passes the context of the export's
// call to every host function, so the per-call *runtime.Context — its
// permission asker, metadata sink, session — and the instance's kernel
// memory (Call.Memory) reach them without any global state, and
// concurrent calls on different instances never see each other.
//
// Guests get flat JSON answers, never Go errors; a host-side failure
// (unreadable memory, a cancelled call) aborts the guest with a trap, which
// the caller reports and which discards the instance.
//
// It imports runtime (for Context and permission types) and wazero's api
// package (value types, GoFunc); it must not import plugins, builtins or
// any front end.
package hostfns
