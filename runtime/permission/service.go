package permission

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/toolhost/toolhost/runtime/session"
)

// StoreNamespace is the session-store namespace holding a session's
// approvals, under the key StoreKeyApproved, as a JSON Ruleset.
const (
	StoreNamespace   = "permission"
	StoreKeyApproved = "approved"
	// StoreKeyGranted holds the session's one-time grants (grant.go).
	StoreKeyGranted = "granted"
)

// ApprovalSource is the Source of the rules an "always" reply adds.
const ApprovalSource = "session approval"

// noAskerReason is the remedy given when a request needs a person and
// there is none; %s are the permission and an example pattern. The model
// reads it (the agent loop, MCP), so it speaks to the model: the model
// cannot change a rule or a flag, only tell the user how to; a person
// running `toolhost call` reads the same remedy.
const noAskerReason = `no one can answer permission requests here, so it was not run. Do not retry it; tell the user what you wanted to do and that, to allow it, they can add "permission": {%q: {%q: "allow"}} to toolhost.json, or run toolhost where they can answer (at a terminal, or with --yes)`

// Service is the evaluator side of permissions: it decides each request from
// the caller's rules plus the session's approvals, asks a person through the
// Asker when the rules say ask, and keeps the requests waiting for an answer.
// It is safe for concurrent use; one Service serves every session of a
// process.
type Service struct {
	store session.Store
	// anonymous keeps the approvals of requests without a session id, for
	// the life of the Service only: an "always" given to a session-less
	// call must not outlive the process that asked.
	anonymous session.Store
	asker     Asker
	log       *slog.Logger
	observer  observer // observe.go

	mu      sync.Mutex
	pending map[string]*pending // by request id
	lastID  int64               // unix nanos of the last id handed out
}

// pending is one request waiting for a reply. err and the closing of done
// are written once, under Service.mu, by settleLocked.
type pending struct {
	req    Request
	rules  Ruleset
	cancel context.CancelFunc // cancels the asker call
	done   chan struct{}
	err    error
	how    Outcome // how an allowed request was allowed
}

// NewService returns a Service. Approvals are kept in store under the
// session (namespace StoreNamespace), so every process using the same store
// and session id sees them; a nil store means a session.Memory of this
// Service's own. Approvals of requests without a session id always stay in
// this Service's memory. asker may be nil: a request the rules would ask
// about is then refused with a *DeniedError saying how to allow it. log may
// be nil.
func NewService(store session.Store, asker Asker, log *slog.Logger) *Service {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if store == nil {
		store = session.NewMemory()
	}
	return &Service{
		store:     store,
		anonymous: session.NewMemory(),
		asker:     asker,
		log:       log,
		pending:   make(map[string]*pending),
	}
}

// anonymousSession is the id the approvals of session-less requests are
// kept under, in Service.anonymous.
const anonymousSession = "anonymous"

// approvals returns the store and session id holding a session's
// approvals.
func (s *Service) approvals(sessionID string) (session.Store, string) {
	if sessionID == "" {
		return s.anonymous, anonymousSession
	}
	return s.store, sessionID
}

// Ask decides req against rules followed by the session's approvals (an
// approval never overrides a deny in rules), and blocks until it is decided:
//
//   - any pattern denied: a *DeniedError quoting the matching rules, at once,
//     without asking;
//   - every pattern allowed: nil;
//   - otherwise the Asker is asked, and its reply decides: once → nil;
//     always → nil, and req.Always is approved for the rest of the session,
//     which also settles the session's other pending requests that are now
//     allowed; reject → *RejectedError (a *CorrectedError when the person
//     gave a message), and every other pending request of the session is
//     rejected too, since the person wants the agent to stop;
//   - the Asker returns an *UnansweredError (nobody could answer): that
//     error, with Permission, Pattern and Remedy filled in when empty; the
//     session's other pending requests are left alone.
//
// A request without patterns is evaluated as the single pattern "*", so a
// rule denying the permission outright still applies. Cancelling ctx stops
// the wait and returns an error wrapping ctx.Err(). req.ID is set to a new
// time-sortable id when empty.
//
// A one-time grant (Grant) for exactly req, in its session, allows it
// where the rules would ask, and is used up. Each decision is reported to
// the Observer set with Observe.
func (s *Service) Ask(ctx context.Context, rules Ruleset, req Request) error {
	if req.ID == "" {
		req.ID = s.newID()
	}
	how, err := s.decide(ctx, rules, req)
	s.report(req.Permission, how, err)
	reportTo(ctx, req.Permission, how, err)
	return err
}

// decide is Ask without the report: how the request was allowed, or why
// not.
func (s *Service) decide(ctx context.Context, rules Ruleset, req Request) (Outcome, error) {
	// Rules first: a deny is final and an allow cannot change (approvals
	// only allow), so the session's approvals — a store read — are needed
	// only for the patterns the rules would ask about.
	var undecided []string
	for _, pattern := range patternsOf(req) {
		rule, matched := req.evaluate(pattern, rules)
		if s.log.Enabled(ctx, slog.LevelDebug) {
			s.log.DebugContext(ctx, "permission evaluated", "permission", req.Permission, "pattern", pattern, "action", rule.Action, "rule", rule.String())
		}
		switch rule.Action {
		case Deny:
			s.log.InfoContext(ctx, "permission denied", "session", req.SessionID, "permission", req.Permission, "pattern", pattern, "rule", rule.String())
			return "", &DeniedError{Permission: req.Permission, Pattern: pattern, Rules: matched}
		case Allow:
		default: // Ask, and anything unknown: a person decides.
			undecided = append(undecided, pattern)
		}
	}
	if len(undecided) == 0 {
		return AllowedByRule, nil
	}
	approved, err := s.ApprovedFor(ctx, req.SessionID, req.Scope)
	if err != nil {
		return "", err
	}
	askPattern, needAsk := "", false
	for _, pattern := range undecided {
		if rule, _ := req.evaluate(pattern, rules, approved); rule.Action != Allow {
			askPattern, needAsk = pattern, true
			req.AskedBy = &rule
			break
		}
	}
	if !needAsk {
		s.log.DebugContext(ctx, "permission allowed by session approvals", "session", req.SessionID, "permission", req.Permission)
		return AllowedByApproval, nil
	}
	if granted, err := s.useGrant(ctx, req); err != nil {
		return "", err
	} else if granted {
		s.log.InfoContext(ctx, "permission allowed by an answer given before the call was retried", "session", req.SessionID, "permission", req.Permission, "patterns", req.Patterns)
		return AllowedByGrant, nil
	}
	if s.asker == nil {
		// The rule to suggest: the request's own "always" rule for the
		// pattern that needs approval, when it has one that covers it.
		example := askPattern
		for _, a := range req.Always {
			if Match(a, askPattern) {
				example = a
				break
			}
		}
		return "", &DeniedError{Permission: req.Permission, Pattern: askPattern, Reason: fmt.Sprintf(noAskerReason, req.Permission, example)}
	}
	return s.wait(ctx, rules, req)
}

// wait registers req as pending, asks the asker in its own goroutine, and
// returns whichever comes first: the asker's reply, a settlement by another
// request's reply (or Reply), or ctx's end. The asker runs apart so that a
// request settled by someone else returns at once even if the asker is slow
// to notice its cancelled context.
func (s *Service) wait(ctx context.Context, rules Ruleset, req Request) (Outcome, error) {
	askCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	p := &pending{req: req, rules: rules, cancel: cancel, done: make(chan struct{})}
	s.mu.Lock()
	if _, dup := s.pending[req.ID]; dup {
		s.mu.Unlock()
		return "", fmt.Errorf("ask permission %s: request id %s is already pending; leave Request.ID empty to have one assigned", req.Permission, req.ID)
	}
	s.pending[req.ID] = p
	s.mu.Unlock()
	s.log.InfoContext(ctx, "permission asked", "id", req.ID, "session", req.SessionID, "permission", req.Permission, "patterns", req.Patterns)

	type answer struct {
		reply Reply
		err   error
	}
	answers := make(chan answer, 1)
	go func() {
		r, err := s.asker.Ask(askCtx, req)
		answers <- answer{r, err}
	}()

	select {
	case <-p.done:
	case <-ctx.Done():
		s.settle(p, "", fmt.Errorf("wait for permission %s: %w", req.Permission, ctx.Err()))
	case a := <-answers:
		var u *UnansweredError
		switch {
		case errors.As(a.err, &u):
			// Not a person's no: only this request fails, with the
			// remedy as the asker worded it.
			un := *u
			if un.Permission == "" {
				un.Permission = req.Permission
			}
			if un.Pattern == "" {
				un.Pattern = patternsOf(req)[0]
			}
			if un.Remedy == "" {
				un.Remedy = "add " + SuggestRule(req.Permission, RulePattern(req)) + " to toolhost.json"
			}
			s.log.InfoContext(ctx, "permission unanswered", "id", req.ID, "session", req.SessionID, "permission", req.Permission, "why", un.Why)
			s.settle(p, "", &un)
		case IsPermissionError(a.err):
			// The asker refused (an MCP client that cannot be asked denies
			// by the ask fallback): its error already names the permission,
			// so it is passed on as it is, not prefixed a second time.
			s.settle(p, "", a.err)
		case a.err != nil:
			s.settle(p, "", fmt.Errorf("ask permission %s: %w", req.Permission, a.err))
		default:
			s.answer(ctx, p, a.reply)
		}
	}
	<-p.done
	return p.how, p.err
}

// Reply answers a pending request from outside its Asker, for front ends
// that list Pending requests and answer them later (an HTTP or MCP UI). The
// request's Asker call is cancelled. It fails when no request with that id
// is pending in this Service.
func (s *Service) Reply(ctx context.Context, requestID string, r Reply) error {
	s.mu.Lock()
	p, ok := s.pending[requestID]
	s.mu.Unlock()
	if !ok {
		return fmt.Errorf("reply to permission request %s: not pending (already answered, cancelled, or asked by another process); list pending requests and reply to one of those", requestID)
	}
	switch r.Kind {
	case Once, Always, Reject:
	default:
		return fmt.Errorf("reply to permission request %s: unknown reply %q; use once, always or reject", requestID, r.Kind)
	}
	s.answer(ctx, p, r)
	return nil
}

// answer applies a person's reply to p, with OpenCode's effects on the other
// pending requests of the same session.
func (s *Service) answer(ctx context.Context, p *pending, r Reply) {
	sid := p.req.SessionID
	switch r.Kind {
	case Once:
		s.log.InfoContext(ctx, "permission granted once", "id", p.req.ID, "session", sid, "permission", p.req.Permission)
		s.settle(p, AllowedOnce, nil)

	case Always:
		if !s.isPending(p) {
			return // answered meanwhile (rejected with a sibling, cancelled)
		}
		approved, err := s.approve(ctx, sid, p.req)
		if err != nil {
			// The person said yes; failing the call over bookkeeping would
			// be worse than asking again next time.
			s.log.ErrorContext(ctx, "permission approval not saved; granted once", "id", p.req.ID, "session", sid, "err", err)
			s.settle(p, AllowedOnce, nil)
			return
		}
		s.log.InfoContext(ctx, "permission granted always", "id", p.req.ID, "session", sid, "permission", p.req.Permission, "patterns", p.req.Always)
		s.mu.Lock()
		defer s.mu.Unlock()
		s.settleLocked(p, AllowedAlways, nil)
		for _, o := range s.pending {
			if o.req.SessionID != sid || !allAllowed(o, approved) {
				continue
			}
			s.log.InfoContext(ctx, "permission granted by an earlier approval", "id", o.req.ID, "session", sid, "permission", o.req.Permission)
			s.settleLocked(o, AllowedByApproval, nil)
		}

	case Reject:
		var err error = &RejectedError{Permission: p.req.Permission}
		if r.Message != "" {
			err = &CorrectedError{Permission: p.req.Permission, Message: r.Message}
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if !s.settleLocked(p, "", err) {
			return
		}
		s.log.InfoContext(ctx, "permission rejected", "id", p.req.ID, "session", sid, "permission", p.req.Permission, "corrected", r.Message != "")
		for _, o := range s.pending {
			if o.req.SessionID == sid {
				s.log.InfoContext(ctx, "permission rejected with its session", "id", o.req.ID, "session", sid, "permission", o.req.Permission)
				s.settleLocked(o, "", &RejectedError{Permission: o.req.Permission})
			}
		}

	default:
		s.settle(p, "", fmt.Errorf("ask permission %s: the asker returned unknown reply %q; it must reply once, always or reject", p.req.Permission, r.Kind))
	}
}

// evaluateSession is Evaluate over rules followed by a session's approvals,
// except that a deny from rules is final. OpenCode lets approvals override
// anything, so approving "rm *" once would also let through "rm -rf /" that
// the user's config denies; here an approval can only turn an ask into an
// allow.
func evaluateSession(permission, pattern string, rules, approved Ruleset) (Rule, Ruleset) {
	rule, matched := Evaluate(permission, pattern, rules)
	if rule.Action == Deny || len(approved) == 0 {
		return rule, matched
	}
	return Evaluate(permission, pattern, rules, approved)
}

// Explain explains the decision Ask would make for one pattern of a
// session: rules followed by the session's approvals, a deny from rules
// being final. It backs `toolhost permissions explain --session`.
func (s *Service) Explain(ctx context.Context, rules Ruleset, sessionID, permission, pattern string) (Explanation, error) {
	approved, err := s.Approved(ctx, sessionID)
	if err != nil {
		return Explanation{}, err
	}
	rule, matched := evaluateSession(permission, pattern, rules, approved)
	return explanation(permission, pattern, rule, matched), nil
}

// allAllowed reports whether every pattern of a pending request is now
// allowed by its own rules plus the session's approvals. (OpenCode checks
// the approvals alone; including the request's rules also settles a request
// whose other patterns were already allowed by config.)
func allAllowed(p *pending, approved Ruleset) bool {
	approved = approved.ForScope(p.req.Scope)
	for _, pattern := range patternsOf(p.req) {
		if own, _ := p.req.evaluate(pattern, p.rules); own.Action == Deny {
			return false
		}
		if all, _ := p.req.evaluate(pattern, p.rules, approved); all.Action != Allow {
			return false
		}
	}
	return true
}

func (s *Service) isPending(p *pending) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pending[p.req.ID] == p
}

func (s *Service) settle(p *pending, how Outcome, err error) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.settleLocked(p, how, err)
}

// settleLocked decides p with err (nil: allowed, in the way how says),
// removes it from pending, cancels its asker call and wakes its Ask. It
// reports false when p was already settled, in which case nothing changes.
func (s *Service) settleLocked(p *pending, how Outcome, err error) bool {
	if cur, ok := s.pending[p.req.ID]; !ok || cur != p {
		return false
	}
	delete(s.pending, p.req.ID)
	p.err, p.how = err, how
	close(p.done)
	p.cancel()
	return true
}

// Pending returns the requests waiting for a reply in this Service, oldest
// first.
func (s *Service) Pending() []Request {
	s.mu.Lock()
	out := make([]Request, 0, len(s.pending))
	for _, p := range s.pending {
		out = append(out, p.req)
	}
	s.mu.Unlock()
	slices.SortFunc(out, func(a, b Request) int {
		if a.ID < b.ID {
			return -1
		} else if a.ID > b.ID {
			return 1
		}
		return 0
	})
	return out
}

// newID returns "per_" followed by the time in nanoseconds (strictly
// increasing within this Service) and a random suffix against collisions
// with other processes, all fixed-width hex so ids sort by creation time.
func (s *Service) newID() string {
	s.mu.Lock()
	n := time.Now().UnixNano()
	if n <= s.lastID {
		n = s.lastID + 1
	}
	s.lastID = n
	s.mu.Unlock()
	return fmt.Sprintf("per_%016x%08x", n, rand.Uint32())
}

// RulePattern is the pattern of the narrowest rule that lets requests like
// req through without asking: its first Always pattern (what an "always"
// answer would approve, e.g. "git push *"), else its first pattern, else
// "*". Use it with SuggestRule.
func RulePattern(req Request) string {
	if len(req.Always) > 0 {
		return req.Always[0]
	}
	return patternsOf(req)[0]
}

// patternsOf is the patterns a request is decided on: its own, or "*" when
// it names none, so that a request cannot slip past a deny by naming nothing.
func patternsOf(req Request) []string {
	if len(req.Patterns) == 0 {
		return []string{"*"}
	}
	return req.Patterns
}
