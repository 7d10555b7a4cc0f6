package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/runtime/permission"
)

// Asker is the permission.Asker of a host that serves MCP: give it to
// host.Options.Asker (or runtime.Options.Asker). It asks the person behind
// the MCP client whose tools/call is running, through elicitation, and
// refuses with a remedy when that client cannot elicit. It holds no state:
// the way to reach the client travels in the call's context, which the
// Server sets for each tools/call, so one Asker serves every session.
type Asker struct{}

var _ permission.Asker = Asker{}

// noElicitReason is the remedy for a request nobody can answer; %q are the
// permission and an example pattern.
const noElicitReason = `this MCP client cannot show permission requests (it does not support elicitation); allow it with a rule such as "permission": {%q: {%q: "allow"}} in toolhost.json`

// Ask implements permission.Asker.
func (Asker) Ask(ctx context.Context, req permission.Request) (permission.Reply, error) {
	elicit, _ := ctx.Value(elicitorKey{}).(elicitor)
	if elicit == nil {
		example := "*"
		if len(req.Always) > 0 {
			example = req.Always[0]
		} else if len(req.Patterns) > 0 {
			example = req.Patterns[0]
		}
		pattern := "*"
		if len(req.Patterns) > 0 {
			pattern = req.Patterns[0]
		}
		return permission.Reply{}, &permission.DeniedError{Permission: req.Permission, Pattern: pattern, Reason: fmt.Sprintf(noElicitReason, req.Permission, example)}
	}
	res, err := elicit(ctx, permissionForm(req))
	if err != nil {
		return permission.Reply{}, fmt.Errorf("ask the MCP client: %w", err)
	}
	return replyOf(res), nil
}

// elicitor sends one elicitation to the client of the running call.
type elicitor func(ctx context.Context, p *sdk.ElicitParams) (*sdk.ElicitResult, error)

type elicitorKey struct{}

func withElicitor(ctx context.Context, e elicitor) context.Context {
	return context.WithValue(ctx, elicitorKey{}, e)
}

// How a call's permission questions reach the person.
type elicitHow int

const (
	// elicitNone: the client cannot elicit; rules decide, "ask" is refused.
	elicitNone elicitHow = iota
	// elicitDirect: an elicitation/create request to the client while the
	// call waits (protocol versions before 2026-07-28).
	elicitDirect
	// elicitRoundTrip: the call is parked and the question returned as an
	// input request; the client retries with the answer (2026-07-28, SEP-2322).
	elicitRoundTrip
)

// roundTripVersion is the first protocol version in which a server may not
// send requests of its own and asks through input requests instead.
const roundTripVersion = "2026-07-28"

func elicitMode(req *sdk.CallToolRequest) elicitHow {
	caps := req.ClientCapabilities()
	if caps == nil || caps.Elicitation == nil {
		return elicitNone
	}
	// Neither form nor url declared means form (the capability predates modes).
	if caps.Elicitation.Form == nil && caps.Elicitation.URL != nil {
		return elicitNone
	}
	if req.ProtocolVersion() >= roundTripVersion {
		return elicitRoundTrip
	}
	return elicitDirect
}

// The fields of the permission form.
const (
	fieldDecision = "decision"
	fieldMessage  = "message"
)

// permissionForm is the elicitation shown for a permission request: the
// message says what is asked (permission, patterns, and the metadata the
// tool attached — a diff for edits, the command for bash), the form asks
// once / always / reject and an optional message for the agent. The whole
// request is also in _meta for clients that render it themselves.
func permissionForm(req permission.Request) *sdk.ElicitParams {
	var b strings.Builder
	fmt.Fprintf(&b, "Allow %s", req.Permission)
	if req.Tool != "" && req.Tool != req.Permission {
		fmt.Fprintf(&b, " (tool %s)", req.Tool)
	}
	b.WriteString("?\n")
	if len(req.Patterns) > 0 {
		fmt.Fprintf(&b, "Patterns: %s\n", strings.Join(req.Patterns, ", "))
	}
	if len(req.Always) > 0 {
		fmt.Fprintf(&b, "\"Always\" allows for the rest of this session: %s\n", strings.Join(req.Always, ", "))
	}
	writeMetadata(&b, req.Metadata)
	return &sdk.ElicitParams{
		Mode:    "form",
		Message: strings.TrimRight(b.String(), "\n"),
		RequestedSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				fieldDecision: map[string]any{
					"type":        "string",
					"title":       "Decision",
					"description": "once: allow this call; always: allow these patterns for the rest of the session; reject: refuse and stop the agent",
					"enum":        []string{string(permission.Once), string(permission.Always), string(permission.Reject)},
					"enumNames":   []string{"Allow once", "Always allow", "Reject"},
				},
				fieldMessage: map[string]any{
					"type":        "string",
					"title":       "Message to the agent",
					"description": "With reject: tell the agent what to do instead",
				},
			},
			"required": []string{fieldDecision},
		},
		Meta: sdk.Meta{"toolhost/permission": req},
	}
}

// maxMetadataText bounds the metadata shown in an elicitation message.
const maxMetadataText = 8000

// writeMetadata renders a request's metadata: a diff as it is, other keys
// as JSON, sorted.
func writeMetadata(b *strings.Builder, meta map[string]any) {
	if len(meta) == 0 {
		return
	}
	start := b.Len()
	if diff, ok := meta["diff"].(string); ok && diff != "" {
		b.WriteString("\n")
		b.WriteString(diff)
		if !strings.HasSuffix(diff, "\n") {
			b.WriteString("\n")
		}
	}
	keys := make([]string, 0, len(meta))
	for k := range meta {
		if k != "diff" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		v, err := json.Marshal(meta[k])
		if err != nil {
			continue
		}
		fmt.Fprintf(b, "%s: %s\n", k, v)
	}
	if b.Len()-start > maxMetadataText {
		s := b.String()[:start+maxMetadataText]
		b.Reset()
		b.WriteString(s)
		b.WriteString("\n… (truncated)\n")
	}
}

// replyOf reads the person's answer. Declining or dismissing the form is a
// rejection: never allow silently.
func replyOf(res *sdk.ElicitResult) permission.Reply {
	if res == nil || res.Action != "accept" {
		return permission.Reply{Kind: permission.Reject}
	}
	msg, _ := res.Content[fieldMessage].(string)
	switch d, _ := res.Content[fieldDecision].(string); permission.ReplyKind(d) {
	case permission.Once:
		return permission.Reply{Kind: permission.Once}
	case permission.Always:
		return permission.Reply{Kind: permission.Always}
	default:
		return permission.Reply{Kind: permission.Reject, Message: strings.TrimSpace(msg)}
	}
}
