package permission

import (
	"context"
	"fmt"
	"strings"
)

// Explanation says why a permission is decided the way it is: which rule
// decided and which earlier matching rules it overrode. It backs
// `toolhost permissions explain`, because last-match-wins surprises people
// ("I allowed git *, why is git push asked?" — a later rule matched).
type Explanation struct {
	Permission string `json:"permission"`
	Pattern    string `json:"pattern"`
	// Decision is the action that applies.
	Decision Action `json:"decision"`
	// Rule is the deciding rule; when no rule matched it is a synthetic ask
	// rule whose Source is NoRuleSource.
	Rule Rule `json:"rule"`
	// Overridden are the rules that also matched, earlier in order, and so
	// lost to Rule. Empty when Rule was the only match.
	Overridden Ruleset `json:"overridden,omitempty"`
}

// Explain evaluates permission and pattern against sets like Evaluate and
// returns the decision with its reasons. To include a session's approvals
// exactly as Service.Ask weighs them, use Service.Explain.
func Explain(permission, pattern string, sets ...Ruleset) Explanation {
	rule, matched := Evaluate(permission, pattern, sets...)
	return explanation(permission, pattern, rule, matched)
}

func explanation(permission, pattern string, rule Rule, matched Ruleset) Explanation {
	e := Explanation{Permission: permission, Pattern: pattern, Decision: rule.Action, Rule: rule}
	if len(matched) > 1 {
		e.Overridden = append(Ruleset(nil), matched[:len(matched)-1]...)
	}
	return e
}

// Format renders the explanation for a terminal. The first line is the
// decision alone, so scripts can read it with `head -1`:
//
//	allow
//	decided by: bash "git *": allow (/home/u/project/toolhost.json:7)
//	overridden rules:
//	  bash "*": ask (default)
func (e Explanation) Format() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n", e.Decision)
	if e.Rule.Source == NoRuleSource {
		fmt.Fprintf(&b, "decided by: %s\n", NoRuleSource)
	} else {
		fmt.Fprintf(&b, "decided by: %s\n", e.Rule)
	}
	if len(e.Overridden) == 0 {
		b.WriteString("overridden rules: none\n")
		return b.String()
	}
	b.WriteString("overridden rules:\n")
	for _, r := range e.Overridden {
		fmt.Fprintf(&b, "  %s\n", r)
	}
	return b.String()
}

// ExplainRequest explains every pattern of req the way Service.Ask decides
// it — unresolved patterns as templates — against sets.
func ExplainRequest(req Request, sets ...Ruleset) []Explanation {
	out := make([]Explanation, 0, len(patternsOf(req)))
	for _, pattern := range patternsOf(req) {
		rule, matched := req.evaluate(pattern, sets...)
		out = append(out, explanation(req.Permission, pattern, rule, matched))
	}
	return out
}

// ExplainRequest is the package-level ExplainRequest over rules followed by
// the session's approvals, a deny from rules being final, as Ask weighs them.
func (s *Service) ExplainRequest(ctx context.Context, rules Ruleset, sessionID string, req Request) ([]Explanation, error) {
	approved, err := s.ApprovedFor(ctx, sessionID, req.Scope)
	if err != nil {
		return nil, err
	}
	out := ExplainRequest(req, rules)
	if len(approved) == 0 {
		return out, nil
	}
	for i, pattern := range patternsOf(req) {
		if out[i].Decision == Deny {
			continue
		}
		rule, matched := req.evaluate(pattern, rules, approved)
		out[i] = explanation(req.Permission, pattern, rule, matched)
	}
	return out, nil
}

// Strictest returns the strictest decision of es: deny over ask over allow;
// allow when es is empty.
func Strictest(es []Explanation) Action {
	d := Allow
	for _, e := range es {
		if strictness(e.Decision) > strictness(d) {
			d = e.Decision
		}
	}
	return d
}
