package runtime

import (
	"context"
	"sync/atomic"

	"github.com/toolhost/toolhost/runtime/permission"
)

// Tracing. A CallTracer puts a span around every call, the first step of
// the chain, so the span covers everything a call does — the gate, hooks,
// validation, the tool, the permission decisions made while it runs. The
// runtime knows only this interface; the program that wants traces hands
// one over (internal/observe/tracing: OpenTelemetry over OTLP), so the runtime
// imports no tracing library.

// CallTracer starts a span for each call the registry runs.
type CallTracer interface {
	// StartCall starts c's span; the returned context carries it to the
	// rest of the chain.
	StartCall(ctx context.Context, c WatchedCall) (context.Context, CallSpan)
}

// CallSpan is one call's span.
type CallSpan interface {
	// Decided records a permission decision made during the call; it runs
	// on the asking goroutine and must be quick.
	Decided(permission string, outcome permission.Outcome)
	// End records how the call ended and ends the span.
	End(res Result, err error)
}

// tracerSlot holds the registry's tracer, swapped atomically so TraceCalls
// may be called while calls run.
type tracerSlot struct{ p atomic.Pointer[CallTracer] }

// TraceCalls makes t the registry's tracer for the calls that start from
// now on; nil turns tracing off.
func (r *Registry) TraceCalls(t CallTracer) {
	if t == nil {
		r.tracer.p.Store(nil)
		return
	}
	r.tracer.p.Store(&t)
}

// traceCall wraps the call in t's span, t nil leaving the chain as it is.
func traceCall(t *CallTracer) step {
	if t == nil {
		return func(next handler) handler { return next }
	}
	return func(next handler) handler {
		return func(ctx context.Context, in *invocation) (Result, error) {
			c := in.call
			ctx, span := (*t).StartCall(ctx, WatchedCall{Tool: c.Tool, SessionID: c.SessionID, CallID: c.CallID, Agent: in.agent.Name, Args: c.Args})
			ctx = permission.ObserveDecisions(ctx, span.Decided)
			res, err := next(ctx, in)
			span.End(res, err)
			return res, err
		}
	}
}
