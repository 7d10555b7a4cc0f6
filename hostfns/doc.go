// Package hostfns holds the host functions guests call — ask, metadata,
// call, log, fetch (HTTP), sample, elicit, state_get, state_set, the
// Extism kernel functions that reach the world (the guarded http_request
// with http_status_code and http_headers; log_trace … log_error and
// get_log_level, which log through the call's slog logger at the level it
// keeps, not through a process-wide setting), the reading and mounting of
// allowed_paths (PathGrants, Mount) — and the functions an embedder adds
// (Define), which guests reach through call under a permission of the
// embedder's naming. The guest contract is docs/abi.md ("toolhost-abi
// 1"); docs/hostfns.md says what every guest kind gets and what an
// embedder's function is guaranteed. names.go holds every name the guest
// sees.
//
// Why this shape:
//
//   - One definition per function, many guest kinds. The functions that
//     take and return JSON are rows of one table (table.go): name, what
//     governs it, its JSON shapes, its Go implementation and the guests
//     it is offered to. Each engine adapts the table to its own wire —
//     Functions to Extism blocks for wasm modules, Script to the host
//     channel of JS and Python tools (package js's Bridge) — so a
//     permission, a grant, a limit and an error text live in one place.
//     HTTP is Call.fetch whether a wasm module calls Extism's
//     http_request or a script tool calls fetch: one HTTPPolicy (allowed
//     hosts, the address dialled, every redirect, the response cap), one
//     refusal text and one warning in the log. A log line is runLog's or
//     guestLog's whether it came from log, log_info, console.log or
//     print: escaped to one printable line and capped (CleanLogMessage),
//     with the same attributes (tool, source=guest, session, call) and
//     the same copy to the call's client. Files are the exception the
//     engines force: wasm modules and Python tools see allowed_paths as
//     WASI mounts (Mount), JS tools through the Bridge's fs ops, which
//     judge paths on the host; both read the grants with PathGrants and
//     keep one rule — a writable grant never reaches into a folder
//     another grant holds read-only. sample and elicit are rows like ask:
//     one "sampling" grant (Call.Sampling, which package js's Grants reads
//     for script tools as package wasm does for modules), one size cap,
//     one set of error texts. guests_cases_test.go and
//     guests_client_test.go run one table of decisions through all three
//     engines.
//   - It is public because embedders add functions here (Define,
//     host.Options.HostFuncs) and their guests' wire shapes (CallRequest,
//     CallReply, AskRequest, LogEntry, FetchRequest …) are types of this
//     package.
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
// It imports runtime (for Context and permission types), wazero (value
// types, GoFunc, the FSConfig mounts go into) and internal/confine/rootfs; it
// must not import plugins, builtins, host or any front end.
package hostfns
