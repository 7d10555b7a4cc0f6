package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	sdk "github.com/toolhost/toolhost/internal/third_party/gosdk/mcp"

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

// noElicitReason is the remedy for a request nobody can answer; %s is the
// rule to add.
const noElicitReason = `this MCP client cannot show permission requests (it does not support elicitation); allow it with a rule such as %s in toolhost.json`

// Ask implements permission.Asker. For a client that cannot elicit, the
// server's ask fallback decides: allow (Options.AskFallback) lets the call
// run once, inbox parks the question in Options.Inbox until a person
// answers it there, anything else refuses it with the rule to add. With
// the inbox fallback, a question a client that can elicit leaves
// unanswered (below) goes to the inbox too. Otherwise the
// person's answer decides: accept with
// once or always allows, accept with reject and decline refuse (a
// *permission.RejectedError, or a *permission.CorrectedError with their
// message). Anything else is not a refusal but a question nobody answered —
// cancel (what a headless client such as Claude Code in print mode sends),
// a retry without an answer, an answer that cannot be read, an elicitation
// request that failed — and becomes a *permission.UnansweredError whose
// remedy names the narrowest rule to add and how the client could answer.
func (Asker) Ask(ctx context.Context, req permission.Request) (permission.Reply, error) {
	elicit, _ := ctx.Value(elicitorKey{}).(elicitor)
	if elicit == nil {
		if inbox, ok := ctx.Value(inboxKey{}).(permission.Asker); ok {
			// The server's ask fallback is inbox: the question waits
			// there for a person, and so does the call.
			return askInbox(ctx, inbox, req)
		}
		if log, ok := ctx.Value(fallbackAllowKey{}).(*slog.Logger); ok {
			// The server's ask fallback is allow: the client cannot
			// show the question, and its own permission prompt already
			// admitted the call. Once, never always: the next call is
			// the client's to admit again.
			log.InfoContext(ctx, "permission ask allowed by the ask fallback; the MCP client's approval stands", "session", req.SessionID, "tool", req.Tool, "permission", req.Permission, "patterns", req.Patterns)
			return permission.Reply{Kind: permission.Once}, nil
		}
		pattern := "*"
		if len(req.Patterns) > 0 {
			pattern = req.Patterns[0]
		}
		return permission.Reply{}, &permission.DeniedError{Permission: req.Permission, Pattern: pattern, Reason: fmt.Sprintf(noElicitReason, permission.SuggestRule(req.Permission, permission.RulePattern(req)))}
	}
	res, err := elicit(ctx, permissionForm(req))
	if err != nil {
		if errors.Is(err, errDraining) {
			// Nobody's no: the server is stopping (drain.go).
			return permission.Reply{}, err
		}
		if ctx.Err() != nil {
			// The call was cancelled or timed out while it waited: a
			// cancellation, reported as such by the permission service.
			return permission.Reply{}, fmt.Errorf("ask the MCP client: %w", err)
		}
		return orInbox(ctx, req, permission.Reply{}, unanswered(req, "the MCP client's answer failed: "+printable(clip(err.Error())), err))
	}
	reply, err := answerOf(req, res)
	return orInbox(ctx, req, reply, err)
}

// orInbox passes on the client's answer, unless nobody answered there
// (cancel, as a client with no one to show the question to sends; no
// answer; a failed request) and the ask fallback is inbox: then the
// question waits in the inbox for a person after all.
func orInbox(ctx context.Context, req permission.Request, reply permission.Reply, err error) (permission.Reply, error) {
	var u *permission.UnansweredError
	inbox, ok := ctx.Value(inboxKey{}).(permission.Asker)
	if !ok || !errors.As(err, &u) {
		return reply, err
	}
	return askInbox(ctx, inbox, req)
}

// unansweredRemedy is what the user can do when a question goes unanswered;
// %s is the rule to add.
const unansweredRemedy = `add %s to toolhost.json, or let their MCP client answer permission questions (for Claude Code: an Elicitation hook in settings.json; see docs/mcp.md in toolhost)`

func unanswered(req permission.Request, why string, cause error) *permission.UnansweredError {
	return permission.Unanswered(req, why, unansweredRemedy, cause)
}

// maxQuoted bounds client-supplied text quoted back in a message.
const maxQuoted = 200

// clip shortens client-supplied text to maxQuoted bytes, on a rune boundary.
func clip(s string) string {
	if len(s) <= maxQuoted {
		return s
	}
	cut := maxQuoted
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// printable replaces what would not print as itself — line breaks, other
// control characters, bidi overrides — with spaces, so text from the client
// stays on its line of the message and reads as it is.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if r == ' ' || unicode.IsPrint(r) {
			return r
		}
		return ' '
	}, s)
}

// elicitor sends one elicitation to the client of the running call.
type elicitor func(ctx context.Context, p *sdk.ElicitParams) (*sdk.ElicitResult, error)

type elicitorKey struct{}

// fallbackAllowKey marks a call whose "ask" the server's ask fallback
// allows; the value is the logger that records each such approval.
type fallbackAllowKey struct{}

// inboxKey marks a call whose "ask" the server's ask fallback parks in
// the permission inbox; the value is the inbox (a permission.Asker).
type inboxKey struct{}

func withInbox(ctx context.Context, inbox permission.Asker) context.Context {
	return context.WithValue(ctx, inboxKey{}, inbox)
}

func withFallbackAllow(ctx context.Context, log *slog.Logger) context.Context {
	return context.WithValue(ctx, fallbackAllowKey{}, log)
}

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

// permissionMetaKey is the _meta key of a permission elicitation that
// carries the whole permission.Request.
const permissionMetaKey = "toolhost/permission"

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
	if note := permission.AlwaysNote(req); note != "" {
		b.WriteString(note + "\n")
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
		Meta: sdk.Meta{permissionMetaKey: req},
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

// The actions of an elicitation result (protocol "ElicitResult.action").
const (
	actionAccept  = "accept"  // the person submitted the form
	actionDecline = "decline" // the person explicitly declined
	actionCancel  = "cancel"  // dismissed without a choice, or nobody to show it to
)

// answerOf reads the person's answer. Only an accepted form with once or
// always allows; decline and an explicit reject are refusals; everything
// else is unanswered. Never allow silently.
func answerOf(req permission.Request, res *sdk.ElicitResult) (permission.Reply, error) {
	if res == nil {
		return permission.Reply{}, unanswered(req, "the MCP client came back without an answer to the permission question", nil)
	}
	switch res.Action {
	case actionAccept:
	case actionDecline:
		return permission.Reply{Kind: permission.Reject}, nil
	case actionCancel:
		return permission.Reply{}, unanswered(req, `the MCP client dismissed it with "cancel", as a client with no one to show it to does`, nil)
	default:
		return permission.Reply{}, unanswered(req, fmt.Sprintf("the MCP client answered with the unknown action %q", clip(res.Action)), nil)
	}
	msg, _ := res.Content[fieldMessage].(string)
	msg = strings.TrimSpace(msg)
	d, _ := res.Content[fieldDecision].(string)
	switch permission.ReplyKind(d) {
	case permission.Once:
		return permission.Reply{Kind: permission.Once}, nil
	case permission.Always:
		return permission.Reply{Kind: permission.Always}, nil
	case permission.Reject:
		return permission.Reply{Kind: permission.Reject, Message: msg}, nil
	}
	if msg != "" {
		// No valid decision, but the person wrote to the agent: that is a
		// refusal with feedback, not silence.
		return permission.Reply{Kind: permission.Reject, Message: msg}, nil
	}
	return permission.Reply{}, unanswered(req, fmt.Sprintf("the MCP client accepted the form without a decision of once, always or reject (got %q)", clip(d)), nil)
}
