// Package mcp connects toolhost to the Model Context Protocol in both
// directions.
//
// As a server (Server, `toolhost mcp`), it offers every tool of a
// runtime.Registry to any MCP client over stdio or Streamable HTTP. Calls go
// through Registry.Call, the one path every tool call takes, so validation,
// hooks, permissions, truncation and logging are the same as for the CLI or
// the agent loop. A permission rule that says "ask" becomes an MCP
// elicitation when the client can show one (elicit.go); the MCP session is
// the toolhost session, so approvals, read stamps and todos live as long as
// it does.
//
// As a client (Manager, client.go), it starts the MCP servers listed under
// "mcp" in the configuration and turns each of their tools into a
// runtime.Tool named <server>_<tool>, which the host adds to the registry
// with source runtime.SourceMCP.
//
// It uses the official Go SDK, github.com/modelcontextprotocol/go-sdk: it
// follows the specification closely (including the 2026-07-28 sessionless
// protocol with multi-round-trip input requests, and the legacy initialize
// handshake older clients use), ships stdio, command, in-memory and
// Streamable HTTP transports, and is maintained with the specification. The
// SDK's package is imported as sdk to keep this package's name.
//
// This package is a front end and a tool source: it imports runtime and its
// subpackages, never host, builtins, plugins or cli.
package mcp
