// Package hostfns implements the host functions toolhost gives wasm tools
// in the Extism namespace extism:host/user — ask, metadata, log, state_get,
// state_set — and the guarded http_request that replaces Extism's own. The
// contract is docs/abi.md ("toolhost-abi 1"); names.go holds every name the
// guest sees, one file per function family documents it.
//
// Host functions learn which call they serve from the context.Context the
// call runs with (WithCall): Extism passes the context given to
// Plugin.CallWithContext to every host function, so the per-call
// *runtime.Context — its permission asker, metadata sink, session — reaches
// them without any global state, and concurrent calls on different
// instances never see each other.
//
// Guests get flat JSON answers, never Go errors; a host-side failure
// (unreadable memory, a cancelled call) aborts the guest with a trap, which
// the caller reports and which discards the instance.
//
// It imports runtime (for Context and permission types) and the Extism SDK;
// it must not import plugins, builtins or any front end.
package hostfns
