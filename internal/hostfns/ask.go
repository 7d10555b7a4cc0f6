package hostfns

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/toolhost/toolhost/runtime/permission"
)

// AskRequest is the JSON a guest passes to ask.
type AskRequest struct {
	Permission string         `json:"permission"`
	Patterns   []string       `json:"patterns"`
	Always     []string       `json:"always,omitempty"`
	Metadata   map[string]any `json:"metadata,omitempty"`
}

// AskResponse is the JSON ask returns. Kind is permission.Kind of the
// refusal: "denied", "rejected" or "corrected"; Error is the message meant
// for the model, which the guest should return as its error.
type AskResponse struct {
	OK    bool   `json:"ok"`
	Kind  string `json:"kind,omitempty"`
	Error string `json:"error,omitempty"`
}

// scope is the Scope the call's asks are made under; never zero.
func (c *Call) scope() permission.Scope {
	if c.Scope.IsZero() {
		return permission.Scope{Tool: c.Tool}
	}
	return c.Scope
}

// ask asks the call's permission engine — the same rules, session
// approvals and asker a built-in tool's Context.Ask goes through — and
// blocks the guest until it is answered.
//
//	(import "extism:host/user" "ask" (func (param i64) (result i64)))
//
// Parameter: offset of an Extism block holding AskRequest JSON.
// Result: offset of a new block holding AskResponse JSON; the guest frees
// it. The guest's timeout clock is stopped while a person is being asked.
// A malformed request or a cancelled call aborts the guest; a refusal is
// an ordinary answer ({"ok":false,…}), not an abort.
func ask(ctx context.Context, stack []uint64) {
	c := callOf(ctx, NameAsk)
	if c.Context == nil {
		fail(c, NameAsk, errors.New("ask is only available while executing a call, not in description or schema"))
	}
	raw := readArg(c, NameAsk, stack)
	var req AskRequest
	if err := json.Unmarshal(raw, &req); err != nil {
		fail(c, NameAsk, fmt.Errorf("request is not AskRequest JSON: %w", err))
	}
	if req.Permission == "" {
		fail(c, NameAsk, errors.New(`request has no "permission"`))
	}
	if req.Patterns == nil {
		req.Patterns = []string{}
	}
	resp := AskResponse{OK: true}
	err := func() error {
		if c.Pause != nil {
			defer c.Pause()()
		}
		return c.Context.Ask(ctx, permission.Request{
			Permission: req.Permission,
			Patterns:   req.Patterns,
			Always:     req.Always,
			Metadata:   req.Metadata,
			Scope:      c.scope(),
		})
	}()
	if err != nil {
		kind := permission.Kind(err)
		if kind == "" {
			// Not a refusal: the call was cancelled or the asker broke.
			fail(c, NameAsk, err)
		}
		c.mu.Lock()
		c.permErr = err
		c.mu.Unlock()
		resp = AskResponse{Kind: string(kind), Error: err.Error()}
	}
	b, _ := json.Marshal(resp)
	reply(c, NameAsk, stack, b)
}
