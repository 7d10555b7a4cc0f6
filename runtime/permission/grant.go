package permission

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"
)

// One-time grants: an answer that arrived after the call asking for it had
// ended. A replica of the MCP server that drains ends the calls waiting for
// a person and tells the client to call again; the person's answer, given
// later through another replica, must not be lost, nor must the person be
// asked twice. So "once" becomes a grant for exactly that request — same
// session, tool (and its Scope), permission, patterns and metadata (the diff of an edit,
// the command of bash) — used up by the first Ask that matches it. Anything
// different, even the same edit to a file changed since, is asked again.
// A deny in the rules still wins: grants are looked at only where the rules
// would ask.

// GrantTTL is how long a one-time grant waits for its call to be retried.
const GrantTTL = 15 * time.Minute

// grant is one stored grant: the digest of the request it allows.
type grant struct {
	Digest  string    `json:"digest"`
	Expires time.Time `json:"expires"`
}

// digest names exactly what req asks for; the request and call ids, which
// differ on every call, are left out.
func digest(req Request) string {
	b, _ := json.Marshal(struct {
		Tool       string            `json:"tool"`
		Permission string            `json:"permission"`
		Patterns   []string          `json:"patterns"`
		Always     []string          `json:"always"`
		Unresolved map[string]string `json:"unresolved"`
		Metadata   map[string]any    `json:"metadata"`
		// omitzero keeps an unscoped request's digest what it was before
		// scopes; a scoped one's grant is the asking tool's alone.
		Scope Scope `json:"scope,omitzero"`
	}{req.Tool, req.Permission, req.Patterns, req.Always, req.Unresolved, req.Metadata, req.Scope})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// RecordAnswer applies a person's reply to req after the call that asked
// has ended, so that the call, made again in the same session, runs
// without asking: once grants exactly req one time (Grant); always also
// approves req.Always for the rest of the session, as an answer in time
// would have; reject records nothing (the retried call is asked again).
func (s *Service) RecordAnswer(ctx context.Context, req Request, r Reply) error {
	switch r.Kind {
	case Once:
		return s.Grant(ctx, req)
	case Always:
		if _, err := s.approve(ctx, req.SessionID, req); err != nil {
			return err
		}
		return s.Grant(ctx, req)
	case Reject:
		return nil
	}
	return fmt.Errorf("record the answer to permission %s: unknown reply %q; use once, always or reject", req.Permission, r.Kind)
}

// Grant lets the next Ask of exactly req, in req's session, through
// without asking, once, within GrantTTL.
func (s *Service) Grant(ctx context.Context, req Request) error {
	now := time.Now()
	g := grant{Digest: digest(req), Expires: now.Add(GrantTTL)}
	store, key := s.approvals(req.SessionID)
	err := store.Update(ctx, key, StoreNamespace, StoreKeyGranted, func(old []byte, exists bool) ([]byte, error) {
		gs, err := liveGrants(old, exists, now)
		if err != nil {
			return nil, err
		}
		return json.Marshal(append(gs, g))
	})
	if err != nil {
		return fmt.Errorf("save a one-time grant of permission %s in session %s: %w", req.Permission, req.SessionID, err)
	}
	return nil
}

// useGrant takes the grant for exactly req, if the session holds one.
func (s *Service) useGrant(ctx context.Context, req Request) (bool, error) {
	store, key := s.approvals(req.SessionID)
	// Most sessions never hold a grant: read before writing.
	if _, ok, err := store.Get(ctx, key, StoreNamespace, StoreKeyGranted); err != nil || !ok {
		return false, readGrantsErr(req, err)
	}
	d, now, used := digest(req), time.Now(), false
	err := store.Update(ctx, key, StoreNamespace, StoreKeyGranted, func(old []byte, exists bool) ([]byte, error) {
		used = false
		gs, err := liveGrants(old, exists, now)
		if err != nil {
			return nil, err
		}
		for i, g := range gs {
			if g.Digest == d {
				gs, used = append(gs[:i], gs[i+1:]...), true
				break
			}
		}
		if len(gs) == 0 {
			return nil, nil
		}
		return json.Marshal(gs)
	})
	if err != nil {
		return false, readGrantsErr(req, err)
	}
	return used, nil
}

func readGrantsErr(req Request, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("read the one-time grants of session %s: %w", req.SessionID, err)
}

// liveGrants decodes stored grants, dropping expired ones.
func liveGrants(old []byte, exists bool, now time.Time) ([]grant, error) {
	if !exists {
		return nil, nil
	}
	var gs []grant
	if err := json.Unmarshal(old, &gs); err != nil {
		return nil, fmt.Errorf("stored grants are corrupt: %w; start a new session", err)
	}
	live := gs[:0]
	for _, g := range gs {
		if now.Before(g.Expires) {
			live = append(live, g)
		}
	}
	return live, nil
}
