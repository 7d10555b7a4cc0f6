// Package host assembles a ready toolhost: it loads the configuration for a
// project directory, opens the session store, and fills a runtime.Registry
// from every tool source in precedence order — built-in tools, wasm tools
// discovered in the config directories, plugin packages, MCP servers.
//
// It is the one place that knows all sources, so runtime stays free of
// them (runtime never imports builtins or plugins). Front ends — the CLI, the
// MCP server, the agent loop — and programs embedding toolhost as a library
// start here.
package host
