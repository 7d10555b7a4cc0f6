package permission

import "sync/atomic"

// Outcome is how Ask decided a request, as reported to an Observer.
type Outcome string

// The outcomes of Ask. Allowed ones say what allowed the request; the
// others match Kind, plus OutcomeError for failures that are no decision
// (the store could not be read, the wait was cancelled).
const (
	AllowedByRule     Outcome = "allowed_by_rule"     // the rules allowed every pattern
	AllowedByApproval Outcome = "allowed_by_approval" // an "always" given earlier in the session
	AllowedByGrant    Outcome = "allowed_by_grant"    // a one-time grant (Grant), used up
	AllowedOnce       Outcome = "allowed_once"        // a person answered once
	AllowedAlways     Outcome = "allowed_always"      // a person answered always
	OutcomeDenied     Outcome = "denied"
	OutcomeRejected   Outcome = "rejected"
	OutcomeCorrected  Outcome = "corrected"
	OutcomeUnanswered Outcome = "unanswered"
	OutcomeError      Outcome = "error"
)

// Observer is told the outcome of every request Ask decides, after it is
// decided. It runs on the asking goroutine, so it must be quick (a metrics
// counter).
type Observer func(permission string, outcome Outcome)

// observer is the Service's Observer, swapped atomically so that Observe
// may be called while requests are being decided.
type observer struct{ p atomic.Pointer[Observer] }

// Observe makes fn the Service's Observer, replacing any earlier one; nil
// removes it. Metrics of permission decisions (the MCP server's /metrics)
// are counted this way.
func (s *Service) Observe(fn Observer) {
	if fn == nil {
		s.observer.p.Store(nil)
		return
	}
	s.observer.p.Store(&fn)
}

// report tells the Observer how Ask ended: how when err is nil, else the
// kind of err.
func (s *Service) report(permission string, how Outcome, err error) {
	fn := s.observer.p.Load()
	if fn == nil {
		return
	}
	(*fn)(permission, outcomeOf(how, err))
}

// outcomeOf is how, or the kind of err when Ask failed.
func outcomeOf(how Outcome, err error) Outcome {
	if err == nil {
		return how
	}
	if k := Kind(err); k != "" {
		return k
	}
	return OutcomeError
}
