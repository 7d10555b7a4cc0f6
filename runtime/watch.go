package runtime

import (
	"context"
	"encoding/json"
	"sync"
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

// callWatchers holds the registry's watchers. The zero value has none.
type callWatchers struct {
	mu   sync.Mutex
	next int
	ws   map[int]CallWatcher
}

// WatchCalls tells w of every call from now on, until cancel is called.
func (r *Registry) WatchCalls(w CallWatcher) (cancel func()) {
	f := &r.watchers
	f.mu.Lock()
	if f.ws == nil {
		f.ws = map[int]CallWatcher{}
	}
	id := f.next
	f.next++
	f.ws[id] = w
	f.mu.Unlock()
	return func() {
		f.mu.Lock()
		delete(f.ws, id)
		f.mu.Unlock()
	}
}

func (f *callWatchers) list() []CallWatcher {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.ws) == 0 {
		return nil
	}
	out := make([]CallWatcher, 0, len(f.ws))
	for _, w := range f.ws {
		out = append(out, w)
	}
	return out
}

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
