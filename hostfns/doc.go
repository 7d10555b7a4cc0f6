// Package hostfns holds the host functions guests call — ask, metadata,
// call, sample, elicit, log, state_get, state_set, and the Extism kernel
// functions that reach the world (the guarded http_request with
// http_status_code and http_headers; log_trace … log_error and
// get_log_level, which log through the call's slog logger at the level it
// keeps, not through a process-wide setting) — and the functions an
// embedder adds (Define), which guests reach through call under a
// permission of the embedder's naming. The guest contract is docs/abi.md
// ("toolhost-abi 1"); docs/hostfns.md says what an embedder's function
// is guaranteed. names.go holds every name the guest sees.
//
// Why this shape:
//
//   - One definition per function, many guest kinds. The functions that
//     take and return JSON are rows of one table (table.go): name, what
//     governs it, its JSON shapes and its Go implementation. Each engine
//     adapts the table to its own wire — Functions to Extism blocks for
//     wasm modules, Script to the host channel of JS and Python tools
//     (package jstool's Bridge) — so ask, metadata and call behave the
//     same in every guest, and a permission is checked in one place.
//   - It is public because embedders add functions here (Define,
//     host.Options.HostFuncs) and their guests' wire shapes (CallRequest,
//     CallReply, AskRequest …) are types of this package.
//   - An embedder's function is one more permission, not a new mechanism:
//     call asks the call's permission engine — rules, session approvals
//     scoped to the calling tool, the asker — exactly as a guest's own ask
//     does, before the Go code runs; its name may not shadow a built-in
//     (Reserved), checked when it is defined, not when a guest calls it.
//
// Host functions learn which call they serve from the context.Context the
// call runs with (WithCall): wazero passes the context of the export's
// call to every host function, so the per-call *runtime.Context — its
// permission asker, metadata sink, session — and the instance's kernel
// memory (Call.Memory) reach them without any global state, and
// concurrent calls on different instances never see each other.
//
// Guests get flat JSON answers, never Go errors; a host-side failure
// (unreadable memory, a cancelled call) aborts a wasm guest with a trap,
// which the caller reports and which discards the instance.
//
// It imports runtime (for Context and permission types) and wazero's api
// package (value types, GoFunc); it must not import plugins, builtins,
// host or any front end.
package hostfns
