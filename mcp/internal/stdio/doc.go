// Package stdio is the MCP stdio transport toolhost's server speaks:
// newline-delimited JSON-RPC over a pair of byte streams, as the MCP
// specification defines it, implemented as the go-sdk's public
// sdk.Transport and sdk.Connection, so the SDK's server runs over it as
// over any transport of its own.
//
// It exists for the CPU a call costs (issue 13, BENCHMARKS.md "MCP"): the
// SDK's IOTransport decodes each message three times, and its encoding of
// a result compacts a tool's output several times over. Here:
//
//   - stream.go: a message is a line, found with one byte search and
//     decoded once; batches (until 2025-06-18), the frame limit and a Read
//     that Close unblocks are kept, as the SDK's connection has them.
//   - splice.go, jsonstring.go: the server's handler puts placeholders in
//     a result (Splicer.Text, Value), and the Splicer under the connection
//     writes the output in as the response leaves, escaped once by
//     AppendJSONString, byte for byte what encoding/json writes.
//   - pollinput_linux.go, stdin_unix.go: stdin read through the runtime's
//     poller, and waited for in poll(2) between calls, so the runtime's
//     monitor thread is not woken by every call (StdinInput).
//
// Package mcp/server uses it for ServeStdio and ServeStream; nothing else
// does. It imports the SDK and nothing of toolhost's.
package stdio
