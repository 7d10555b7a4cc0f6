package permission

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Action is what a rule says to do.
type Action string

// The three actions a rule can carry.
const (
	Allow Action = "allow"
	Ask   Action = "ask"
	Deny  Action = "deny"
)

// Valid reports whether a is one of Allow, Ask or Deny.
func (a Action) Valid() bool { return a == Allow || a == Ask || a == Deny }

// Rule is one permission/pattern/action triple. Source says where it came
// from ("default", "agent build", "/home/u/.config/toolhost/toolhost.json:12",
// "session approval") so Explain can show it.
type Rule struct {
	Permission string `json:"permission"`
	Pattern    string `json:"pattern"`
	Action     Action `json:"action"`
	Source     string `json:"source,omitempty"`
}

func (r Rule) String() string {
	s := fmt.Sprintf("%s %q: %s", r.Permission, r.Pattern, r.Action)
	if r.Source != "" {
		s += " (" + r.Source + ")"
	}
	return s
}

// Ruleset is an ordered list of rules; later rules override earlier ones.
type Ruleset []Rule

// Request is what a tool asks for: a permission, the patterns the call
// touches (every one must be allowed), and the patterns that an "always"
// reply should approve for the rest of the session.
type Request struct {
	ID         string   `json:"id,omitempty"`
	SessionID  string   `json:"sessionID,omitempty"`
	MessageID  string   `json:"messageID,omitempty"`
	CallID     string   `json:"callID,omitempty"`
	Tool       string   `json:"tool,omitempty"`
	Permission string   `json:"permission"`
	Patterns   []string `json:"patterns"`
	Always     []string `json:"always,omitempty"`
	// Unresolved maps those of Patterns whose real text is known only at
	// run time (a command word from a variable, a redirection target from a
	// command substitution) to a template: the pattern with a Hole for each
	// unknown part. Such a pattern is decided by EvaluateTemplate, so no
	// narrower allow rule matches it by accident of its source text, while
	// a deny that might apply still does. The key is what a person is shown.
	Unresolved map[string]string `json:"unresolved,omitempty"`
	Metadata   map[string]any    `json:"metadata,omitempty"`
}

// evaluate decides one of r's patterns: as a template when it is
// unresolved, else by Evaluate.
func (r Request) evaluate(pattern string, sets ...Ruleset) (Rule, Ruleset) {
	if t, ok := r.Unresolved[pattern]; ok {
		return EvaluateTemplate(r.Permission, t, sets...)
	}
	return Evaluate(r.Permission, pattern, sets...)
}

// ReplyKind is a person's answer to a Request.
type ReplyKind string

// The replies a person can give.
const (
	Once   ReplyKind = "once"
	Always ReplyKind = "always"
	Reject ReplyKind = "reject"
)

// Reply is the asker's answer. A Reject with a Message is a correction: the
// model receives the message as feedback instead of a bare refusal.
type Reply struct {
	Kind    ReplyKind `json:"kind"`
	Message string    `json:"message,omitempty"`
}

// Asker is the UI side of permissions: it shows a request to a person and
// returns their reply. It must return promptly with ctx.Err() when ctx is
// cancelled (the call was cancelled, or another reply made the question moot).
type Asker interface {
	Ask(ctx context.Context, req Request) (Reply, error)
}

// AskerFunc adapts a function to Asker.
type AskerFunc func(ctx context.Context, req Request) (Reply, error)

// Ask calls f.
func (f AskerFunc) Ask(ctx context.Context, req Request) (Reply, error) { return f(ctx, req) }

// DeniedError means a rule denied the request; no person was asked.
type DeniedError struct {
	Permission string
	Pattern    string
	Rules      Ruleset // the rules that matched the denied pattern, deciding one last
	// Reason, when set, replaces the rule in the message: the request was
	// refused because it needed a person's answer and no one can give one
	// (no Asker), and Reason says how to allow it instead.
	Reason string
}

func (e *DeniedError) Error() string {
	if e.Reason != "" {
		return fmt.Sprintf("permission %s for %q needs approval, but %s", e.Permission, e.Pattern, e.Reason)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "permission %s denied for %q by rule", e.Permission, e.Pattern)
	if len(e.Rules) > 0 {
		fmt.Fprintf(&b, " %s", e.Rules[len(e.Rules)-1])
	}
	b.WriteString("; the user's configuration forbids this, do not retry it")
	return b.String()
}

// RejectedError means a person rejected the request (or another request of
// the same session that was pending with it).
type RejectedError struct {
	Permission string
}

func (e *RejectedError) Error() string {
	return fmt.Sprintf("the user rejected permission to use %s; stop and wait for their instructions", e.Permission)
}

// CorrectedError means a person rejected the request and said why; Message
// is given to the model as feedback.
type CorrectedError struct {
	Permission string
	Message    string
}

func (e *CorrectedError) Error() string {
	return fmt.Sprintf("the user rejected permission to use %s with this feedback: %s", e.Permission, e.Message)
}

// Kind names which of the three permission failures err is: "denied",
// "rejected" or "corrected"; "" when err is none of them.
func Kind(err error) string {
	var d *DeniedError
	var r *RejectedError
	var c *CorrectedError
	switch {
	case errors.As(err, &d):
		return "denied"
	case errors.As(err, &c):
		return "corrected"
	case errors.As(err, &r):
		return "rejected"
	}
	return ""
}

// IsPermissionError reports whether err is a denial, rejection or correction.
func IsPermissionError(err error) bool { return Kind(err) != "" }
