package runtime

import (
	"context"

	"github.com/toolhost/toolhost/runtime/permission"
)

// Session events, in OpenCode's names: what a plugin's event hook
// receives besides the tool.execute.before and tool.execute.after that
// every call sends. The agent loop publishes the session and message
// events; the registry publishes the permission events for every front end.
const (
	EventSessionCreated     = "session.created"
	EventSessionIdle        = "session.idle"
	EventSessionError       = "session.error"
	EventMessagePartUpdated = "message.part.updated"
	EventPermissionAsked    = "permission.asked"
	EventPermissionReplied  = "permission.replied"
)

// EventHook is a Hook that also wants the events of sessions (OpenCode's
// plugin "event" hook). Event must not block: it queues the event and
// returns, delivering each hook's events in the order they were published.
type EventHook interface {
	Hook
	Event(ctx context.Context, typ string, props any)
}

// Publish sends an event to every hook that takes events, in hook order.
// props is marshalled to JSON by each hook.
func (r *Registry) Publish(ctx context.Context, typ string, props any) {
	for _, h := range r.hookList() {
		if eh, ok := h.(EventHook); ok {
			eh.Event(ctx, typ, props)
		}
	}
}

// announce wraps the person-facing asker so that every request put to a
// person, and the answer, are published to event hooks. Requests decided by
// rules or by the session's approvals are not: nobody was asked. A nil asker
// stays nil (requests that need a person are refused).
func (r *Registry) announce(asker permission.Asker) permission.Asker {
	if asker == nil {
		return nil
	}
	return permission.AskerFunc(func(ctx context.Context, req permission.Request) (permission.Reply, error) {
		r.Publish(ctx, EventPermissionAsked, permissionAsked(req))
		reply, err := asker.Ask(ctx, req)
		if err == nil {
			r.Publish(ctx, EventPermissionReplied, map[string]any{"sessionID": req.SessionID, "requestID": req.ID, "reply": reply.Kind})
		}
		return reply, err
	})
}

// permissionAsked is a request in the shape of OpenCode's permission.asked.
func permissionAsked(req permission.Request) map[string]any {
	out := map[string]any{
		"id":         req.ID,
		"sessionID":  req.SessionID,
		"permission": req.Permission,
		"patterns":   req.Patterns,
		"always":     req.Always,
		"metadata":   req.Metadata,
	}
	if req.CallID != "" || req.MessageID != "" {
		out["tool"] = map[string]any{"callID": req.CallID, "messageID": req.MessageID}
	}
	if !req.Scope.IsZero() {
		// A wasm or JS tool asked: its "always" is its own.
		out["scope"] = req.Scope
	}
	return out
}
