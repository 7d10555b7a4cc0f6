// Package host assembles a ready toolhost for a project directory: New
// opens the project — its paths, trust and config (internal/confine/trust) — and
// the session store (runtime/session/configured), then loops over the
// tool sources (runtime/source) in precedence order: built-in tools, wasm
// modules, JS and Python tool files, plugins, MCP servers, then an
// embedder's. A watching host follows every source that changes from one
// loop (source.FollowInto); Close undoes New (internal/lifecycle).
//
// It is the one place that knows all sources, so runtime stays free of
// them; it imports no front end. An embedder needs four names (ExampleNew):
//
//	h, err := host.New(ctx, host.Options{Directory: dir})
//	defer h.Close(ctx)
//	tools, err := h.Tools(ctx, model, agent)   // what to offer the model
//	res, err := h.Call(ctx, runtime.Call{Tool: "read", Args: args, SessionID: id})
//
// Writing a native tool needs the contract in package runtime; writing a
// tool source, the one in package runtime/source.
package host
