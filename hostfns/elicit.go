package hostfns

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/toolhost/toolhost/runtime"
)

// ElicitReply is the JSON elicit returns: the person's answer
// ({"action": "accept", "content": {…}}, or "decline" / "cancel"), or
// Error when nobody could be asked.
type ElicitReply struct {
	*runtime.ElicitResult
	Error string `json:"error,omitempty"`
}

// elicit asks the person behind the client a question of the tool's
// making, with a form described by a flat JSON Schema (MCP
// elicitation/create), and blocks the guest until they answer.
//
//	(import "extism:host/user" "elicit" (func (param i64) (result i64)))
//
// Parameter: offset of a block holding runtime.ElicitRequest JSON
// ({"message": "…", "requestedSchema": {"type": "object", "properties":
// {…}}}). Result: offset of a new block holding ElicitReply JSON. The
// guest's timeout clock is stopped while the person decides. A client
// that cannot elicit gives {"error": "…"}, which the guest handles; a
// malformed request, or use outside execute, aborts the guest.
//
// Like ask, it reaches a person, not a model, so it needs no grant.
func elicit(ctx context.Context, stack []uint64) {
	c := callOf(ctx, NameElicit)
	if c.Context == nil {
		fail(c, NameElicit, errors.New("elicit is only available while executing a call, not in description or schema"))
	}
	raw := readArg(c, NameElicit, stack)
	var req runtime.ElicitRequest
	if err := json.Unmarshal(raw, &req); err != nil {
		fail(c, NameElicit, fmt.Errorf("request is not elicit request JSON: %w", err))
	}
	if req.Message == "" {
		fail(c, NameElicit, errors.New(`request has no "message"`))
	}
	if t, _ := req.RequestedSchema["type"].(string); t != "object" {
		fail(c, NameElicit, errors.New(`"requestedSchema" must be a JSON Schema with "type": "object"`))
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
			fail(c, NameElicit, err)
		}
		out.Error = err.Error()
	} else {
		out.ElicitResult = &res
	}
	b, _ := json.Marshal(out)
	reply(c, NameElicit, stack, b)
}
