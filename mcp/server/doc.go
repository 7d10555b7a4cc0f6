// Package server offers a toolhost registry to any Model Context Protocol
// client (`toolhost mcp`), over stdio or Streamable HTTP.
//
// Calls go through Registry.Call, the one path every tool call takes, so
// validation, hooks, permissions, truncation and logging are the same as
// for the CLI or the agent loop. A permission rule that says "ask" becomes
// an MCP elicitation when the client can show one (elicit.go), or a parked
// call answered in a later round trip under the sessionless protocol
// (parked.go); the MCP session is the toolhost session, so approvals, read
// stamps and todos live as long as it does. The tool list follows the
// registry: when tools come or go, clients get notifications/tools/
// list_changed (refresh.go).
//
// Tools borrow what the client can do (client.go): their log lines reach
// it as notifications/message, and when it declared sampling or can show
// forms, a tool may ask its model (sampling/createMessage) or its user a
// question of the tool's own (elicitation/create). The project is served
// too (project.go): skills and commands as prompts, the resources/ folder
// and the full outputs of truncated calls as resources, with templates,
// completion and subscriptions; the files are read by internal/content/prompts
// and internal/content/resources, which keep every read inside its folder.
//
// It uses the official Go SDK, github.com/modelcontextprotocol/go-sdk: it
// follows the specification closely (including the 2026-07-28 sessionless
// protocol with multi-round-trip input requests, and the legacy initialize
// handshake older clients use), ships stdio, in-memory and Streamable HTTP
// transports, and is maintained with the specification. The SDK's package
// is imported as sdk. toolhost links a copy of its release with four
// patches that cut the CPU of a call (internal/third_party/gosdk/README.md),
// at an internal import path, so that a program importing this package
// builds against upstream releases of everything else; no exported
// identifier here names an SDK type. Stdio is served over toolhost's own
// transport (package mcp/internal/stdio, an sdk.Transport: a message per
// line, decoded once, stdin on the poller), under which tool outputs are
// written straight into the responses (toResult, stdio.Splicer): together
// a read call over stdio costs a third of the CPU it did.
//
// Files over 500 lines, and why they stay whole: project.go is one MCP
// capability, a project's prompts and resources, whose handlers (list,
// get, read, complete, subscribe, poll) share one judge of what may be read
// and one view of the two folders, kept in step.
//
// This package is a front end: it imports runtime and its subpackages,
// never host, builtins, plugins or the CLI. The client side — MCP servers
// as a tool source — is package mcp/client.
package server
