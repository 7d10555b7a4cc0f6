package permission

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
)

// Approved returns the approvals that apply to the built-in tools'
// requests: the rules the session's "always" replies to unscoped requests
// added, in the order given. Approvals given to a wasm or JS tool's ask
// (scoped, see Scope) are left out; ApprovedFor returns those, Approvals
// all of them. With a store they are read from it on every call, so
// approvals given in another process count at once.
func (s *Service) Approved(ctx context.Context, sessionID string) (Ruleset, error) {
	return s.ApprovedFor(ctx, sessionID, Scope{})
}

// ApprovedFor returns the session's approvals that apply to a request of
// scope: those given to that tool (or, for the zero Scope, to built-ins).
func (s *Service) ApprovedFor(ctx context.Context, sessionID string, scope Scope) (Ruleset, error) {
	all, err := s.Approvals(ctx, sessionID)
	return all.ForScope(scope), err
}

// Approvals returns every approval of the session, scoped or not, for
// listing and revoking; decide with Approved or ApprovedFor instead.
func (s *Service) Approvals(ctx context.Context, sessionID string) (Ruleset, error) {
	store, key := s.approvals(sessionID)
	data, ok, err := store.Get(ctx, key, StoreNamespace, StoreKeyApproved)
	if err != nil {
		return nil, fmt.Errorf("read permission approvals of session %s: %w", sessionID, err)
	}
	if !ok {
		return nil, nil
	}
	var rules Ruleset
	if err := json.Unmarshal(data, &rules); err != nil {
		return nil, fmt.Errorf("read permission approvals of session %s: stored approvals are corrupt: %w; start a new session", sessionID, err)
	}
	return rules, nil
}

// approve adds an allow rule for each of req.Always to the session's
// approvals, scoped to req.Scope, and returns the session's approvals
// afterwards (all of them: callers pick by scope). A pattern already
// approved is not added twice.
func (s *Service) approve(ctx context.Context, sessionID string, req Request) (Ruleset, error) {
	add := func(rules Ruleset) Ruleset {
		for _, pattern := range req.Always {
			r := Rule{Permission: req.Permission, Pattern: pattern, Action: Allow, Source: ApprovalSource, Scope: req.Scope}
			if !slices.Contains(rules, r) {
				rules = append(rules, r)
			}
		}
		return rules
	}
	var out Ruleset
	// Update is one transaction, so approvals given at the same moment by
	// two processes are both kept.
	store, key := s.approvals(sessionID)
	err := store.Update(ctx, key, StoreNamespace, StoreKeyApproved, func(old []byte, exists bool) ([]byte, error) {
		var rules Ruleset
		if exists {
			if err := json.Unmarshal(old, &rules); err != nil {
				return nil, fmt.Errorf("decode existing approvals: %w", err)
			}
		}
		out = add(rules)
		return json.Marshal(out)
	})
	if err != nil {
		return nil, fmt.Errorf("save permission approvals of session %s: %w", sessionID, err)
	}
	return out, nil
}

// Revoke removes one of a session's "always" approvals: the rule with
// rule's permission and pattern. Requests it allowed are asked again from
// then on. It reports whether such an approval was there.
func (s *Service) Revoke(ctx context.Context, sessionID string, rule Rule) (bool, error) {
	found := false
	store, key := s.approvals(sessionID)
	err := store.Update(ctx, key, StoreNamespace, StoreKeyApproved, func(old []byte, exists bool) ([]byte, error) {
		found = false
		var rules Ruleset
		if exists {
			if err := json.Unmarshal(old, &rules); err != nil {
				return nil, fmt.Errorf("decode existing approvals: %w", err)
			}
		}
		kept := rules[:0:0]
		for _, r := range rules {
			if r.Permission == rule.Permission && r.Pattern == rule.Pattern {
				found = true
				continue
			}
			kept = append(kept, r)
		}
		return json.Marshal(kept)
	})
	if err != nil {
		return false, fmt.Errorf("revoke permission approval %s %q of session %s: %w", rule.Permission, rule.Pattern, sessionID, err)
	}
	if found {
		s.log.InfoContext(ctx, "permission approval revoked", "session", sessionID, "permission", rule.Permission, "pattern", rule.Pattern)
	}
	return found, nil
}
