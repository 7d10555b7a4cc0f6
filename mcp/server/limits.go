package server

import (
	"context"
	"fmt"
	"sync/atomic"

	sdk "github.com/toolhost/toolhost/internal/third_party/gosdk/mcp"

	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/permission"
)

// Bounded parked calls. Each parked call (parked.go) holds goroutines, and
// may hold a wasm instance or a child process, for as long as a person
// takes to answer — up to parkTTL. A client that starts calls and never
// answers would otherwise grow a replica without bound; past
// Options.MaxParked a call that asks is ended at once with a result saying
// why, so its client learns it now instead of waiting.

// DefaultMaxParked is Options.MaxParked when it is 0.
const DefaultMaxParked = 256

// parkFullError is the result of a call that asked while the replica held
// as many parked calls as it may.
type parkFullError struct{ max int }

func (e parkFullError) Error() string {
	return fmt.Sprintf("this call was not run to the end: it needs a permission answer, and this toolhost server replica already holds %d calls waiting for one, its limit (toolhost mcp --max-parked); answer or abandon the questions waiting, then call the tool again", e.max)
}

// maxParked is the limit in effect: Options.MaxParked, else the default;
// negative means no limit.
func (s *Server) maxParked() int {
	switch m := s.opts.MaxParked; {
	case m == 0:
		return DefaultMaxParked
	case m < 0:
		return 0
	default:
		return m
	}
}

// parkResult is what putBounded did with a call.
type parkResult int

const (
	parked       parkResult = iota
	parkDraining            // the server drains: release the call (drain.go)
	parkFull                // at the limit: refuse the call
)

// putBounded parks c unless the server drains or holds max calls already
// (0: no limit).
func (p *parkedCalls) putBounded(c *parkedCall, draining *atomic.Bool, max int) parkResult {
	p.mu.Lock()
	defer p.mu.Unlock()
	if draining.Load() {
		return parkDraining
	}
	if _, again := p.calls[c.state]; !again && max > 0 && len(p.calls) >= max {
		return parkFull
	}
	p.calls[c.state] = c
	return parked
}

// count is the number of calls parked now.
func (p *parkedCalls) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.calls)
}

// refuseFull ends a call that asked while the replica was full.
func (s *Server) refuseFull(pc *parkedCall) *sdk.CallToolResult {
	pc.cancel()
	s.opts.Metrics.parkRefused()
	s.log.Warn("a call needing a permission answer refused: parked calls at their limit", "max", s.maxParked())
	return toResult(runtime.Result{}, parkFullError{s.maxParked()}, nil)
}

// boundedInbox is the permission inbox as a server's calls ask it: a call
// waiting there for a person is parked as much as one waiting for a round
// trip (it holds its goroutines, instance or process until answered), so
// past Options.MaxParked such calls the question is refused at once.
type boundedInbox struct{ s *Server }

func (b boundedInbox) Ask(ctx context.Context, req permission.Request) (permission.Reply, error) {
	s := b.s
	n := s.inboxWaiting.Add(1)
	defer s.inboxWaiting.Add(-1)
	if max := s.maxParked(); max > 0 && int(n) > max {
		s.opts.Metrics.parkRefused()
		s.log.Warn("a call needing a permission answer refused: calls waiting in the permission inbox at their limit", "max", max)
		return permission.Reply{}, parkFullError{max}
	}
	return s.opts.Inbox.Ask(ctx, req)
}
