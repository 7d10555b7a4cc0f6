// Package host assembles a ready toolhost: it loads the configuration for a
// project directory, decides whether the project is trusted (internal/
// trust), opens the session store (runtime/session/configured), and fills
// a runtime.Registry by a loop over tool sources (runtime/source) in
// precedence order — built-in tools, wasm modules, JS and Python tool
// files, plugins, MCP servers, then any an embedder hands it (sources.go).
// A watching host follows every source that can change from one loop
// (source.FollowInto); Close undoes what New opened, in reverse order
// (internal/lifecycle).
//
// It is the one place that knows all sources, so runtime stays free of
// them (runtime never imports builtins or plugins). Front ends — the CLI, the
// MCP server, the agent loop — and programs embedding toolhost as a library
// start here, and host imports none of them: the task tool, which needs an
// agent loop, is added by the front end that has one.
//
// An embedder needs four names:
//
//	h, err := host.New(ctx, host.Options{Directory: dir})
//	defer h.Close(ctx)
//	tools, err := h.Tools(ctx, model, agent)   // what to offer the model
//	res, err := h.Call(ctx, runtime.Call{Tool: "read", Args: args, SessionID: id})
//
// Writing a native tool needs the contract in package runtime; writing a
// tool source, the one in package runtime/source.
package host
