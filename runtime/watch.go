package runtime

import (
	"context"
	"encoding/json"
	"time"
)

// CallWatcher is told of every call the registry runs, from its start to
// its outcome, whatever its route (a front end, batch, a subagent). It is
// for front ends that show calls as they happen (the permission inbox);
// unlike a Hook it cannot change or refuse anything, and it sees calls the
// gate refuses too. Both methods run in the call's goroutine and must
// return soon.
type CallWatcher interface {
	CallStarted(ctx context.Context, c WatchedCall)
	CallEnded(ctx context.Context, c WatchedCall, res Result, err error)
}

// WatchedCall names a call for a CallWatcher.
type WatchedCall struct {
	Tool      string
	SessionID string
	CallID    string
	Agent     string
	Args      json.RawMessage
	Start     time.Time
}

// WatchCalls tells w of every call from now on, until cancel is called.
func (r *Registry) WatchCalls(w CallWatcher) (cancel func()) { return r.watchers.add(w) }

// watchCall tells ws of the call's start and outcome.
func watchCall(ws []CallWatcher) step {
	if len(ws) == 0 {
		return func(next handler) handler { return next }
	}
	return func(next handler) handler {
		return func(ctx context.Context, in *invocation) (Result, error) {
			c := in.call
			wc := WatchedCall{Tool: c.Tool, SessionID: c.SessionID, CallID: c.CallID, Agent: in.agent.Name, Args: c.Args, Start: time.Now()}
			for _, w := range ws {
				w.CallStarted(ctx, wc)
			}
			res, err := next(ctx, in)
			for _, w := range ws {
				w.CallEnded(ctx, wc, res, err)
			}
			return res, err
		}
	}
}
