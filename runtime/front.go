package runtime

// Front is what a call's texts depend on about the front end it comes
// from. A model reads tool names in descriptions, hints and errors and
// calls what they name, so they must be the names it sees: an MCP client
// shows toolhost's read as "toolhost_read" (OpenCode) or
// "mcp__toolhost__read" (Claude Code), beside a read tool of its own that
// toolhost knows nothing about. The zero value is toolhost's own front
// ends (CLI, agent loop): tools named by their ids, every check on.
type Front struct {
	// ToolPrefix goes before a tool's id to make the name the model
	// calls it by. Empty: the ids themselves.
	ToolPrefix string

	// SkipReadCheck lets the write tools change an existing file this
	// session never read through toolhost, for clients whose models read
	// files with the client's own read tool. A file read through toolhost
	// and changed since is refused either way: that check rests on what
	// toolhost saw, not on what it did not.
	SkipReadCheck bool
}

// ToolName is the name the model calls the tool id by.
func (f Front) ToolName(id string) string { return f.ToolPrefix + id }

// Hint is what a truncation hint may point the model to: the tools it is
// offered, named as it sees them.
type Hint struct {
	// Delegate: the agent may hand the search to a subagent (a tool
	// declaring Traits.Delegates), so the hint suggests that.
	Delegate bool
	// Front names the tools.
	Front Front
}

// TruncationHint is the hint for this call's truncated output.
func (c *Context) TruncationHint() Hint {
	return Hint{Delegate: c.CanDelegate, Front: c.Front}
}
