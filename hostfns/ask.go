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

// runAsk is ask: it asks the call's permission engine — the same rules, session
// approvals and asker a built-in tool's Context.Ask goes through — and
// blocks the guest until it is answered.
//
//	(import "extism:host/user" "ask" (func (param i64) (result i64)))
//
// Parameter: offset of an Extism block holding AskRequest JSON.
// Result: offset of a new block holding AskResponse JSON; the guest frees
// it. The guest's timeout clock is stopped while a person is being asked.
// A malformed request or a cancelled call aborts the guest; a refusal is
// an ordinary answer ({"ok":false,…}), not an abort. Script tools reach
// the same code through Script("ask"), where a refusal is thrown.
func runAsk(ctx context.Context, c *Call, raw []byte) (any, error) {
	var req AskRequest
	if err := json.Unmarshal(raw, &req); err != nil {
		return nil, fmt.Errorf("request is not AskRequest JSON: %w", err)
	}
	if req.Permission == "" {
		return nil, errors.New(`request has no "permission"`)
	}
	if c.Context == nil {
		// Nobody to ask: refused, fail closed (a script tool sees the
		// rejection; a wasm guest is aborted).
		return nil, fmt.Errorf("ask is only available while executing a call, not in description or schema: %w", &permission.RejectedError{Permission: req.Permission})
	}
	if req.Patterns == nil {
		req.Patterns = []string{}
	}
	err := c.askPermission(ctx, permission.Request{
		Permission: req.Permission,
		Patterns:   req.Patterns,
		Always:     req.Always,
		Metadata:   req.Metadata,
		Scope:      c.scope(),
	})
	if err == nil {
		return AskResponse{OK: true}, nil
	}
	kind := permission.Kind(err)
	if kind == "" {
		// Not a refusal: the call was cancelled or the asker broke.
		return nil, err
	}
	return AskResponse{Kind: string(kind), Error: err.Error()}, nil
}

// askPermission asks the call's permission engine with the guest's clock
// stopped, and keeps a refusal for PermissionError.
func (c *Call) askPermission(ctx context.Context, req permission.Request) error {
	err := func() error {
		if c.Pause != nil {
			defer c.Pause()()
		}
		return c.Context.Ask(ctx, req)
	}()
	if err != nil && permission.Kind(err) != "" {
		c.mu.Lock()
		c.permErr = err
		c.mu.Unlock()
	}
	return err
}
