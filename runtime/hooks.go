package runtime

import (
	"context"
	"encoding/json"

	"github.com/toolhost/toolhost/runtime/permission"
)

// Call is one tool call as a front end receives it.
type Call struct {
	Tool      string
	Args      json.RawMessage
	SessionID string // default: a new session per call
	MessageID string
	CallID    string // default: a new id
	Agent     string // default: config default_agent, else "build"
	Model     string
	Extra     map[string]any
	// Rules are extra permission rules for this call, applied after the
	// agent's (a subagent's session denying todowrite and task). Tools that
	// call other tools (batch) pass them on, so they cannot be escaped.
	Rules permission.Ruleset
	// OnMetadata receives live progress from the tool.
	OnMetadata func(title string, meta map[string]any)
	// Front is the front end the call comes from, for the texts the
	// model reads (tool names) and the read-before-write check. Zero:
	// toolhost's own, tools named by their ids. Tools that call other
	// tools (batch) pass it on.
	Front Front
	// Client is what the front end can do for the running tool (show its
	// logs, sample its model, ask its user); see Client. Zero: nothing.
	Client Client
	// Listed admits the call only when a listing for Model (Registry.Tools)
	// shows the tool, so a person who calls what `toolhost tools` listed
	// meets the same set (the CLI sets it). Unset, a call for an unknown
	// model may use either of two alternatives (Env.Listing): an MCP client
	// that names apply_patch may call it though the listing showed edit.
	Listed bool
}

// Hook observes or changes every tool call, whatever its source (built-in,
// wasm, MCP) and however it arrives (direct, batch, MCP server, agent loop):
// the Registry runs hooks inside Call, the one path every call takes.
type Hook interface {
	// BeforeExecute runs before validation (tool.execute.before). It may
	// change in.Args, or return an error to refuse the call.
	BeforeExecute(ctx context.Context, in *BeforeExecute) error
	// AfterExecute runs after truncation (tool.execute.after). It may
	// change *in.Result; an error is logged and the result kept.
	AfterExecute(ctx context.Context, in *AfterExecute) error
}

// BeforeExecute is the input of the tool.execute.before hook.
type BeforeExecute struct {
	Tool      string
	SessionID string
	CallID    string
	Agent     string
	Args      json.RawMessage
}

// AfterExecute is the input of the tool.execute.after hook.
type AfterExecute struct {
	Tool      string
	SessionID string
	CallID    string
	Agent     string
	Args      json.RawMessage
	Result    *Result
	Err       error // the call's error, if it failed
}

// HookFuncs adapts two functions to Hook; either may be nil.
type HookFuncs struct {
	Before func(ctx context.Context, in *BeforeExecute) error
	After  func(ctx context.Context, in *AfterExecute) error
}

// BeforeExecute calls h.Before.
func (h HookFuncs) BeforeExecute(ctx context.Context, in *BeforeExecute) error {
	if h.Before == nil {
		return nil
	}
	return h.Before(ctx, in)
}

// AfterExecute calls h.After.
func (h HookFuncs) AfterExecute(ctx context.Context, in *AfterExecute) error {
	if h.After == nil {
		return nil
	}
	return h.After(ctx, in)
}

var _ Hook = HookFuncs{}
