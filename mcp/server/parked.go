package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"sync"
	"time"

	sdk "github.com/toolhost/toolhost/internal/third_party/gosdk/mcp"

	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/config"
)

// Multi-round-trip calls (protocol 2026-07-28, SEP-2322). The server may not
// send elicitation requests of its own; a tools/call that needs an answer
// returns an "input required" result carrying the question and an opaque
// requestState, and the client calls again with the answer and that state.
//
// A toolhost tool asks in the middle of running (tc.Ask blocks), so the
// call cannot simply be restarted with the answer: it would redo its work
// and ask again. Instead the call runs in its own goroutine and is parked
// while the question travels: requestState names the parked call, and the
// retry hands the answer to the blocked Ask and waits for the call's next
// question or its result.

// parkTTL is how long a parked call waits for the client to come back with
// an answer before it is cancelled.
const parkTTL = 15 * time.Minute

// inputKey is the id of the permission question in an input-request map.
const inputKey = "permission"

type parkedCalls struct {
	mu    sync.Mutex
	calls map[string]*parkedCall
}

func (p *parkedCalls) init() { p.calls = map[string]*parkedCall{} }

func (p *parkedCalls) put(c *parkedCall) {
	p.mu.Lock()
	p.calls[c.state] = c
	p.mu.Unlock()
}

// take removes and returns the call parked under state.
func (p *parkedCalls) take(state string) *parkedCall {
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.calls[state]
	delete(p.calls, state)
	return c
}

// parkedCall is a tools/call running apart from the requests that serve it.
type parkedCall struct {
	state    string // unguessable: it is all a client needs to answer for the call
	cancel   context.CancelFunc
	progress *progress
	asks     chan question      // the call's questions, one at a time
	done     chan finished      // its result, once
	current  *question          // the question awaiting an answer
	expiry   *time.Timer        // cancels the call when no answer comes
	session  *sdk.ServerSession // the client session that started it
}

type question struct {
	params *sdk.ElicitParams
	answer chan *sdk.ElicitResult
}

type finished struct {
	res runtime.Result
	err error
}

func newState() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return "tcall_" + hex.EncodeToString(b[:])
}

// startParked runs call apart and serves its first round.
func (s *Server) startParked(ctx context.Context, req *sdk.CallToolRequest, call runtime.Call) *sdk.CallToolResult {
	// The call outlives this request (it waits across round trips), so it
	// keeps ctx's values but not its cancellation; cancel and the expiry
	// timer end it instead.
	callCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	pc := &parkedCall{
		state:    newState(),
		cancel:   cancel,
		progress: newProgress(req.Session, req.Params.GetProgressToken(), s.log),
		asks:     make(chan question),
		done:     make(chan finished, 1),
		session:  req.Session,
	}
	callCtx = withElicitor(callCtx, pc.elicit)
	if s.opts.AskFallback == config.AskFallbackInbox {
		callCtx = withInboxNote(callCtx, req.Session, pc.progress, s.opts.Inbox) // inboxnote.go
	}
	call.OnMetadata = pc.progress.update
	done := s.opts.Metrics.begin(s.reg, call.Tool)
	go func() {
		res, err := s.reg.Call(callCtx, call)
		done(err)
		pc.done <- finished{res, err}
	}()
	return s.serve(ctx, pc)
}

// resume answers a parked call's question with the client's retry.
func (s *Server) resume(ctx context.Context, req *sdk.CallToolRequest) *sdk.CallToolResult {
	pc := s.parked.take(req.Params.RequestState)
	if pc == nil {
		// Released by a draining replica (drain.go), this one or another.
		if res, ok := s.answerReleased(ctx, req); ok {
			return res
		}
	}
	if pc == nil && s.relay != nil {
		return s.resumeElsewhere(ctx, req)
	}
	if pc == nil {
		return toResult(runtime.Result{}, errExpired, nil)
	}
	pc.expiry.Stop()
	s.forgetParked(pc.state)
	// A retry without an answer (or with one of another kind) hands the
	// call nil: the question went unanswered, which refuses the call
	// without claiming the person rejected it (see answerOf).
	ans, _ := req.Params.InputResponses[inputKey].(*sdk.ElicitResult)
	pc.current.answer <- ans
	pc.current = nil
	pc.progress.retarget(ctx, req.Session, req.Params.GetProgressToken())
	return s.serve(ctx, pc)
}

// serve waits for the call's next question or its result while the request
// ctx lasts. A question parks the call and goes back as an input request.
func (s *Server) serve(ctx context.Context, pc *parkedCall) *sdk.CallToolResult {
	pc.progress.attach(ctx)
	defer pc.progress.detach()
	select {
	case q := <-pc.asks:
		pc.current = &q
		pc.expiry = time.AfterFunc(parkTTL, func() {
			if s.parked.take(pc.state) != nil {
				s.forgetParked(pc.state)
				s.log.Info("permission question not answered in time; call cancelled", "ttl", parkTTL)
				pc.cancel()
			}
		})
		switch s.parked.putBounded(pc, &s.drain.on, s.maxParked()) {
		case parkDraining:
			pc.expiry.Stop()
			return s.releaseAsked(ctx, pc, q)
		case parkFull:
			pc.expiry.Stop()
			return s.refuseFull(pc)
		}
		s.storeParked(ctx, pc) // answerable if this replica dies (parked_store.go)
		return &sdk.CallToolResult{
			// The go-sdk writes "content" even when it is empty (no
			// omitempty), so a nil slice goes out as null, which clients
			// that check the result against the schema refuse; and an
			// input-required result may carry no content (the go-sdk
			// refuses one with both). An empty array satisfies both.
			Content:       []sdk.Content{},
			InputRequests: sdk.InputRequestMap{inputKey: q.params},
			RequestState:  pc.state,
		}
	case f := <-pc.done:
		pc.cancel()
		return toResult(f.res, f.err, nil)
	case <-ctx.Done():
		// The client gave up on the call (cancelled, disconnected).
		pc.cancel()
		f := <-pc.done
		return toResult(f.res, f.err, nil)
	}
}

// elicit is the call's elicitor: it hands the question to the request being
// served and waits for the answer the retry brings.
func (pc *parkedCall) elicit(ctx context.Context, p *sdk.ElicitParams) (*sdk.ElicitResult, error) {
	q := question{params: p, answer: make(chan *sdk.ElicitResult, 1)}
	select {
	case pc.asks <- q:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	select {
	case a := <-q.answer:
		return a, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

type expiredError struct{}

func (expiredError) Error() string {
	return "this answer is for a tool call that is no longer waiting (it was answered already, timed out after " + parkTTL.String() + ", or the server restarted); call the tool again"
}

var errExpired error = expiredError{}
