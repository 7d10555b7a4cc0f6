package agent

import (
	"context"

	"github.com/toolhost/toolhost/runtime"
)

// Plugins' event hooks receive the loop's events in OpenCode's shapes
// (session.created, session.idle, session.error, message.part.updated),
// published through the registry to every hook that takes events. The
// permission events come from the registry itself, for every front end.
// A text part is published once, when its step ends, not per streamed
// piece: an event hook is a wasm call, and a queue of deltas would be
// dropped.

// publish sends e to the plugins' event hooks, when it is one they get.
func (r *Runner) publish(ctx context.Context, e Event) {
	var typ string
	var props map[string]any
	switch e.Type {
	case EventToolCall, EventToolUpdate, EventToolResult, EventToolError:
		typ, props = runtime.EventMessagePartUpdated, map[string]any{"part": toolPart(e)}
	case EventFinish:
		typ, props = runtime.EventSessionIdle, map[string]any{"sessionID": e.SessionID}
	case EventError:
		typ, props = runtime.EventSessionError, map[string]any{"sessionID": e.SessionID,
			"error": map[string]any{"name": "UnknownError", "data": map[string]any{"message": e.Error}}}
	default: // text deltas (published per step), permission events (the registry's)
		return
	}
	r.reg.Publish(ctx, typ, props)
}

// toolPart is a tool call's state as OpenCode's ToolPart.
func toolPart(e Event) map[string]any {
	state := map[string]any{}
	switch e.Type {
	case EventToolCall, EventToolUpdate:
		state["status"] = StateRunning
		if e.Input != nil {
			state["input"] = e.Input
		}
		if e.Title != "" {
			state["title"] = e.Title
		}
		if e.Metadata != nil {
			state["metadata"] = e.Metadata
		}
	case EventToolResult:
		state["status"] = StateCompleted
		state["title"] = e.Title
		state["output"] = e.Output
		state["metadata"] = e.Metadata
	case EventToolError:
		state["status"] = StateError
		state["error"] = e.Error
	}
	if e.Time != nil {
		state["time"] = e.Time
	}
	return map[string]any{"type": "tool", "sessionID": e.SessionID, "callID": e.CallID, "tool": e.Tool, "state": state}
}

// publishCreated announces a new session.
func (ru *run) publishCreated(ctx context.Context, info Info) {
	ru.reg.Publish(ctx, runtime.EventSessionCreated, map[string]any{"info": map[string]any{
		"id": info.ID, "parentID": info.ParentID, "title": info.Title, "directory": ru.dir,
		"time": map[string]any{"created": info.Created},
	}})
}

// publishText announces the text of an assistant message, once complete.
func (ru *run) publishText(ctx context.Context, msg Message) {
	if msg.Text == "" {
		return
	}
	ru.reg.Publish(ctx, runtime.EventMessagePartUpdated, map[string]any{"part": map[string]any{
		"type": "text", "sessionID": ru.sid, "messageID": msg.ID, "text": msg.Text,
	}})
}
