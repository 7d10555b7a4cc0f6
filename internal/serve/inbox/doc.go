// Package inbox is the permission inbox: a small web page, and the JSON API
// it is built on, where a person answers the permission questions ("ask")
// that the front end in use cannot show — an MCP client without
// elicitation (OpenCode, Qwen Code, Cursor, the Inspector), or `toolhost
// run` without a terminal. Such a question is parked here; the call waits
// until someone answers once, always or reject (with a message for the
// model), until the call is cancelled, or until the inbox's timeout, after
// which it is refused with a message saying nobody answered.
//
// The Inbox is a permission.Asker, so it plugs in where any asker does; the
// permission service still decides rules, approvals and the effects of a
// reply on the session's other requests. Beside the questions the page
// shows each session's tool calls (told by runtime.Registry.WatchCalls),
// the session's "always" approvals with a revoke button, and an agent's
// effective rules with the file and line each comes from.
//
// The page is server-rendered (render.go: plain Go escaping as
// html/template does, which the binary cannot afford to link) with one
// plain script that follows a server-sent event stream; there is no
// build step. Every response carries a Content-Security-Policy that allows
// only the page's own script and style, so no value that reaches the page —
// a command, a diff, a file name chosen by the model — can run as script,
// and render.go escapes them all. The HTTP guard (Host, Origin, bearer
// token) is internal/serve/httpguard, shared with the MCP HTTP server; writes
// additionally need a JSON body and pass net/http's CrossOriginProtection.
//
// A question is only answered if someone knows it waits, so the inbox is
// easy to find (address.go): a stable loopback port per project, a record
// of each running inbox in the data directory for `toolhost inbox`, one
// token per user kept where the bash sandbox cannot read it, and a desktop
// notification when a question starts waiting (notify.go). The MCP server
// tells the waiting call's client the URL (mcp/server/inboxnote.go).
//
// It must not import the MCP server, the agent loop or the CLI: the CLI
// imports it and hands it to the others as a permission.Asker, the one
// small interface they park a question through.
package inbox
