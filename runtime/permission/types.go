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
	// Scope is the tool a session approval was given to; zero for every
	// other rule and for approvals given to built-in tools (scope.go).
	Scope Scope `json:"scope,omitzero"`
}

func (r Rule) String() string {
	s := fmt.Sprintf("%s %q: %s", r.Permission, r.Pattern, r.Action)
	switch {
	case r.Source != "" && !r.Scope.IsZero():
		s += " (" + r.Source + ", for " + r.Scope.String() + " only)"
	case r.Source != "":
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
	// AskedBy is the rule that made the Service ask a person (its Source
	// names file and line), set by Service.Ask before the Asker is called
	// so a front end can show why it is asking. Nil: not known.
	AskedBy *Rule `json:"askedBy,omitempty"`
	// Scope is the tool an "always" answer approves for: set for requests
	// a wasm or JS tool makes through ask, so that its "bash *" never
	// approves the built-in bash (scope.go). Zero for built-in tools.
	Scope Scope `json:"scope,omitzero"`
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
// When the question could not be shown or no answer came, it returns an
// *UnansweredError rather than a Reject: nobody said no.
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

// UnansweredError means the request needed a person's answer and none
// came: the front end could not show the question (a headless MCP client
// answers "cancel"), the answer was missing or unreadable, or the wait
// ended without one. Nobody said no, so the model must not be told the
// user rejected anything (it would stop and wait for instructions that
// never come); it is told the question went unanswered, and Remedy tells
// the user how to let such calls through. Unlike a rejection it settles
// only its own request: the session's other pending requests keep waiting.
// An Asker returns it as its error.
type UnansweredError struct {
	Permission string
	Pattern    string
	// Why says what happened, e.g. `the MCP client dismissed the question
	// (action "cancel")`. Empty: not said.
	Why string
	// Remedy says how the user can let such calls through: the narrowest
	// rule to add, or how their client can answer. Empty: SuggestRule of
	// Permission and Pattern.
	Remedy string
	// Err is the failure behind it, when there was one (an elicitation
	// request that failed); Unwrap returns it.
	Err error
}

// Unanswered is the UnansweredError of req, which nobody answered for the
// reason why. remedy says what the user can do; its one %s is replaced by
// the narrowest rule that would allow req (SuggestRule of RulePattern).
// cause, when not nil, is the failure behind it.
func Unanswered(req Request, why, remedy string, cause error) *UnansweredError {
	pattern := "*"
	if len(req.Patterns) > 0 {
		pattern = req.Patterns[0]
	}
	return &UnansweredError{
		Permission: req.Permission,
		Pattern:    pattern,
		Why:        why,
		Remedy:     fmt.Sprintf(remedy, SuggestRule(req.Permission, RulePattern(req))),
		Err:        cause,
	}
}

func (e *UnansweredError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "permission %s for %q needs the user's approval, but the question could not be shown to them or was not answered", e.Permission, e.Pattern)
	if e.Why != "" {
		fmt.Fprintf(&b, " (%s)", e.Why)
	}
	remedy := e.Remedy
	if remedy == "" {
		remedy = "add " + SuggestRule(e.Permission, e.Pattern) + " to toolhost.json"
	}
	fmt.Fprintf(&b, ". Nobody rejected it; do not retry it now. Tell the user what you wanted to do and that, to allow it, they can %s", remedy)
	return b.String()
}

func (e *UnansweredError) Unwrap() error { return e.Err }

// SuggestRule is the toolhost.json fragment that allows pattern under
// permission, e.g. "permission": {"bash": {"git push *": "allow"}}: the
// narrowest rule to offer a user who wants such calls to run without being
// asked. Pass a request's Always pattern when it has one (it is what an
// "always" answer would approve), else the pattern that was asked about.
func SuggestRule(permission, pattern string) string {
	if pattern == "" {
		pattern = "*"
	}
	return fmt.Sprintf(`"permission": {%q: {%q: "allow"}}`, permission, pattern)
}

// Kind is the Outcome err reports when it is a permission failure:
// OutcomeDenied, OutcomeRejected, OutcomeCorrected or OutcomeUnanswered,
// found with errors.As through any wrapping; "" when err is none of them.
// Callers compare it with those constants, never with strings.
func Kind(err error) Outcome {
	var d *DeniedError
	var r *RejectedError
	var c *CorrectedError
	var u *UnansweredError
	switch {
	case errors.As(err, &d):
		return OutcomeDenied
	case errors.As(err, &c):
		return OutcomeCorrected
	case errors.As(err, &r):
		return OutcomeRejected
	case errors.As(err, &u):
		return OutcomeUnanswered
	}
	return ""
}

// IsPermissionError reports whether err is a denial, rejection, correction
// or an unanswered request.
func IsPermissionError(err error) bool { return Kind(err) != "" }
