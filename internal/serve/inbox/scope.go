package inbox

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"

	"github.com/toolhost/toolhost/internal/serve/httpguard"
)

// Whose questions. An inbox behind one token (its own --inbox-token, or
// the MCP server's one shared token) has one kind of visitor: the person
// who answers, who sees and answers everything. An inbox served on the MCP
// port with several callers (named tokens, an identity provider) is
// reached by every caller of the server, and one caller's token must not
// make it the approver of another's calls: there a visitor sees, answers
// and revokes only what its own calls asked (Request.Caller,
// Session.Caller), and only an operator (HandlerOptions.Operators) sees
// all of it and may trust the project. A question of no authenticated
// caller (stdio, a loopback server without a token) is an operator's where
// operators are named; where none are, it is the inbox's, as it always
// was, and every caller sees it — somebody must be able to answer it. The
// holders of the one shared --token are the caller "token"
// (httpguard.SharedCaller, a name no named token may take), which
// --inbox-operators may name.

// viewer is who looks at the inbox.
type viewer struct {
	caller   string
	operator bool
	// unowned is whether the viewer sees questions of no caller.
	unowned bool
}

type viewerKey struct{}

// scoped puts the request's viewer in its context; h runs after
// httpguard.Wrap, which named the caller.
func scoped(opts HandlerOptions, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		caller := httpguard.CallerOf(r.Context())
		v := viewer{caller: caller, operator: opts.Callers == nil || slices.Contains(opts.Operators, caller), unowned: len(opts.Operators) == 0}
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), viewerKey{}, v)))
	})
}

// viewerOf is the viewer of r; without one (a handler not behind scoped),
// a caller that sees nothing.
func viewerOf(r *http.Request) viewer {
	v, ok := r.Context().Value(viewerKey{}).(viewer)
	if !ok {
		return viewer{caller: "\x00none"}
	}
	return v
}

// sees reports whether v may see and answer what caller's calls asked.
func (v viewer) sees(caller string) bool {
	if caller == "" {
		return v.operator || v.unowned
	}
	return v.operator || caller == v.caller
}

func (v viewer) requests(all []Request) []Request {
	return slices.DeleteFunc(all, func(q Request) bool { return !v.sees(q.Caller) })
}

func (v viewer) sessions(all []Session) []Session {
	return slices.DeleteFunc(all, func(s Session) bool { return !v.sees(s.Caller) })
}

// questionCaller is the caller of the question id, parked here or on
// another replica; not ok when no such question is waiting.
func (ib *Inbox) questionCaller(ctx context.Context, id string) (string, bool) {
	ib.mu.Lock()
	p, ok := ib.pending[id]
	sh := ib.shared
	ib.mu.Unlock()
	if ok {
		return p.req.Caller, true
	}
	if sh == nil {
		return "", false
	}
	raw, ok, err := sh.store.Get(ctx, sharedSession, pendingNS, id)
	if err != nil || !ok {
		return "", false
	}
	var q sharedQuestion
	if json.Unmarshal(raw, &q) != nil {
		return "", false
	}
	return q.Request.Caller, true
}

// sessionCaller is the caller of the session id as the call history saw
// it; not ok when the history does not hold it.
func (ib *Inbox) sessionCaller(id string) (string, bool) {
	ib.mu.Lock()
	defer ib.mu.Unlock()
	s, ok := ib.sessions[id]
	if !ok {
		return "", false
	}
	return s.caller, true
}

// operatorOnly refuses r with 403 unless its viewer is an operator.
func operatorOnly(w http.ResponseWriter, r *http.Request) bool {
	if !viewerOf(r).operator {
		apiError(w, http.StatusForbidden, "only an operator (--inbox-operator) may review or trust the project")
		return false
	}
	return true
}
