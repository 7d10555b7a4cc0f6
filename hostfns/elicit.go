package hostfns

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/toolhost/toolhost/runtime"
)

// MaxElicitRequest caps one elicit request's JSON: a question and a
// form a person reads, checked before the request is decoded.
const MaxElicitRequest = 1 << 20

// ElicitReply is the JSON elicit returns: the person's answer
// ({"action": "accept", "content": {…}}, or "decline" / "cancel"), or
// Error when nobody could be asked.
type ElicitReply struct {
	*runtime.ElicitResult
	Error string `json:"error,omitempty"`
}

// runElicit is elicit: it asks the person behind the client a question of the tool's
// making, with a form described by a flat JSON Schema (MCP
// elicitation/create), and blocks the guest until they answer.
//
//	(import "extism:host/user" "elicit" (func (param i64) (result i64)))
//
// JS tools call it as context.elicit(request) and Python tools as
// ctx.elicit(message, schema), over their host channel (Script), with
// these checks and error texts.
//
// Parameter: offset of a block holding runtime.ElicitRequest JSON
// ({"message": "…", "requestedSchema": {"type": "object", "properties":
// {…}}}). Result: offset of a new block holding ElicitReply JSON. The
// guest's timeout clock is stopped while the person decides. A client
// that cannot elicit gives {"error": "…"}, which the guest handles; a
// malformed request, or use outside execute, aborts the guest.
//
// Like ask, it reaches a person, not a model, so it needs no grant.
func runElicit(ctx context.Context, c *Call, raw []byte) (any, error) {
	if c.Context == nil {
		return nil, errors.New("elicit is only available while executing a call, not in description or schema")
	}
	if len(raw) > MaxElicitRequest {
		return nil, fmt.Errorf("request is over the %d-byte limit; ask a shorter question", MaxElicitRequest)
	}
	var req runtime.ElicitRequest
	if err := json.Unmarshal(raw, &req); err != nil {
		return nil, fmt.Errorf("request is not elicit request JSON: %w", err)
	}
	if req.Message == "" {
		return nil, errors.New(`request has no "message"`)
	}
	if t, _ := req.RequestedSchema["type"].(string); t != "object" {
		return nil, errors.New(`"requestedSchema" must be a JSON Schema with "type": "object"`)
	}
	var out ElicitReply
	res, err := func() (runtime.ElicitResult, error) {
		if c.Pause != nil {
			defer c.Pause()()
		}
		return c.Context.Elicit(ctx, req)
	}()
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		out.Error = err.Error()
	} else {
		out.ElicitResult = &res
	}
	return out, nil
}
