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
// This package imports nothing else from toolhost, so the runtime, the wasm
// host functions and the front ends can all depend on it.
package permission
