// Package permission decides whether a tool may do something.
//
// A decision is made from rules: a permission name ("bash", "edit",
// "external_directory", "mcp_*"), a pattern ("git *", "*.env") and an action
// (allow, ask, deny). All rule sets that apply to a call — built-in
// defaults, the agent's rules, the user's config, then the approvals given
// during the session — are flattened in that order and the LAST matching rule
// wins; when nothing matches the answer is ask. This is OpenCode's model, kept
// on purpose so its users feel at home; Explain exists because last-match-wins
// surprises people, and shows which rule decided and what it overrode.
//
// The API is split the way the two sides use it: Asker is the one-method UI
// side (a terminal prompt, an MCP elicitation, a test double), and Service is
// the evaluator that owns rules, session approvals and pending requests.
//
// Patterns are matched by Match, OpenCode's wildcard language ("*" crosses
// "/", "?" is one character, "ls *" also matches "ls"). It is hand-written
// rather than built on a library: doublestar and path.Match give "*" glob
// semantics that stop at "/", which is wrong for commands and for OpenCode
// configs, and compiling each pattern to a regexp (OpenCode's way) is 2-10
// times slower even when cached (see BenchmarkMatch). FuzzMatch checks it
// against the regexp formulation.
//
// Approvals ("always" replies) are kept per session in the session store
// (namespace StoreNamespace), so separate processes serving one session —
// the CLI, an MCP server, an agent loop — share them. So are one-time
// grants (grant.go): an answer that arrived after the call asking for it
// ended (an MCP replica drained meanwhile) allows exactly that request,
// once, when the call is made again. Every decision is reported to an
// optional Observer (observe.go), which the MCP server's metrics count.
//
// This package imports nothing from toolhost except runtime/session (a leaf
// package), so the runtime, the wasm host functions and the front ends can
// all depend on it.
//
// service_test.go is over 500 lines: the service's behaviours (ask, once, always, reject, pending, stores, unanswered) share its fixtures.
package permission
