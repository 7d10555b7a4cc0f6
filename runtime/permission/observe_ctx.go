package permission

import "context"

// A call's own observer. The Service's Observer (observe.go) sees every
// decision of every call; a tracer needs the decisions of one call, to put
// them on that call's span. ObserveDecisions puts an Observer in the
// call's context, and Ask reports to it too.

type decisionsKey struct{}

// ObserveDecisions returns ctx carrying fn, which Ask calls (after the
// Service's Observer) with each decision made under ctx or a context
// derived from it. An observer already in ctx is called as well, after fn.
func ObserveDecisions(ctx context.Context, fn Observer) context.Context {
	if fn == nil {
		return ctx
	}
	if outer, ok := ctx.Value(decisionsKey{}).(Observer); ok {
		inner := fn
		fn = func(p string, o Outcome) { inner(p, o); outer(p, o) }
	}
	return context.WithValue(ctx, decisionsKey{}, fn)
}

// reportTo tells ctx's observer how Ask ended, as report does.
func reportTo(ctx context.Context, permission string, how Outcome, err error) {
	fn, ok := ctx.Value(decisionsKey{}).(Observer)
	if !ok {
		return
	}
	fn(permission, outcomeOf(how, err))
}
