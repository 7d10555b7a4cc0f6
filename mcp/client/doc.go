// Package client makes the tools of MCP servers toolhost tools.
//
// A Manager starts the servers listed under "mcp" in the configuration
// (local commands over stdio, remote ones over Streamable HTTP or SSE) and
// turns each of their tools into a runtime.Tool named <server>_<tool>,
// which the host adds to the registry with source runtime.SourceMCP, so a
// remote tool is gated, validated, truncated and logged like any other.
// Progress notifications become live metadata; a server that exits is
// restarted on the next call.
//
// It uses the official Go SDK, github.com/modelcontextprotocol/go-sdk,
// imported as sdk. The serving side is package mcp/server.
package client
