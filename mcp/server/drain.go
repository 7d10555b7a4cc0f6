package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/toolhost/toolhost/internal/third_party/gosdk/mcp"

	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/permission"
	"github.com/toolhost/toolhost/runtime/session"
)

// Draining without losing a person's answer. A replica told to stop
// (SIGTERM) finishes the calls that are running, but a call waiting for a
// person may wait for minutes, longer than any drain timeout, and its
// process is about to go. So Drain ends those calls at once, and what the
// person is being asked stays answerable:
//
//   - A parked call (parked.go: its question went back to the client as an
//     input request) is released: its permission request is stored under
//     its requestState (namespace relayReleasedNS of the relay session),
//     and the call is cancelled. The client's retry with the answer reaches
//     another replica, which finds the released request instead of a call,
//     records the answer in the session (permission.Service.RecordAnswer:
//     once becomes a one-time grant for exactly that request, always an
//     approval), and tells the client the call did not run and to make it
//     again. The call made again runs without asking the person twice.
//   - A question that arises while the replica drains is released the same
//     way as soon as it is sent.
//   - A call asking through a direct elicitation request (protocols before
//     2026-07-28) waits on a stream this replica holds; its answer cannot
//     reach another replica. Drain cancels the wait, and the call ends with
//     errDraining: call again, and the person is asked again.
//
// Without a store (Options.Relay nil) a released call cannot be answered
// anywhere, so the client's retry gets the call-expired error. A released
// request nobody answers expires with the call it stood for (parkTTL) and
// is deleted by the next drain of any replica (pruneReleased).
//
// Why end the calls rather than hand them over: a call in flight holds
// goroutines, a wasm instance, perhaps a child process, none of which can
// move; a tool asks before the act it asks about, so the call made again
// redoes at most what led up to the question, and the answer is what must
// not be lost.

// relayReleasedNS holds, by requestState, the permission request of a call
// released by a draining replica (JSON releasedCall).
const relayReleasedNS = "released"

// releasedCall is what a draining replica leaves of a parked call.
type releasedCall struct {
	Request permission.Request `json:"request"`
	Expires time.Time          `json:"expires"`
}

// drainingError is the result of a call a draining replica ended.
type drainingError struct{}

func (drainingError) Error() string {
	return "this call was not run: the toolhost server replica serving it is shutting down (draining) and ended the call while it waited for a permission answer; call the tool again with the same arguments and another replica will serve it"
}

var errDraining error = drainingError{}

// drainState is what a Server knows about its drain.
type drainState struct {
	on atomic.Bool
	mu sync.Mutex
	// asking holds the cancel functions of direct elicitations in
	// flight, so Drain can end their waits.
	asking map[*int]context.CancelCauseFunc
}

// Drain ends the calls waiting for a person, so that a replica can stop
// without holding them (see above): parked calls are released to the
// shared store, direct elicitations cancelled with errDraining, and
// questions asked from now on are released as they are sent. Calls not
// waiting for anyone are left to finish. ListenAndServe calls it when its
// context ends; a program serving by other means calls it before it stops.
func (s *Server) Drain(ctx context.Context) {
	// Turned on under the parked calls' lock: serve parks a call only
	// while it is off (parkedCalls.putBounded), so none is parked after
	// the snapshot below.
	s.parked.mu.Lock()
	if s.drain.on.Swap(true) {
		s.parked.mu.Unlock()
		return
	}
	calls := make([]*parkedCall, 0, len(s.parked.calls))
	for _, pc := range s.parked.calls {
		calls = append(calls, pc)
	}
	s.parked.mu.Unlock()
	s.drain.mu.Lock()
	for _, cancel := range s.drain.asking {
		cancel(errDraining)
	}
	s.drain.mu.Unlock()
	for _, pc := range calls {
		if s.parked.take(pc.state) == nil {
			continue // a retry took it meanwhile; the call runs on
		}
		pc.expiry.Stop()
		s.storeReleased(ctx, pc)
		s.forgetParked(pc.state)
		pc.cancel()
		// A retry that came between the take and the store is waiting
		// in resumeElsewhere, here or on another replica: wake it to
		// find the released request.
		s.wakeRelayed(ctx, pc.state)
	}
	if len(calls) > 0 {
		s.log.Info("drain: calls waiting for a permission answer released", "calls", len(calls), "answerable_elsewhere", s.opts.Relay != nil)
	}
	s.pruneReleased(ctx)
}

// pruneReleased deletes released requests whose answer never came (every
// replica's: they are only ever written by drains, so each drain clears
// what earlier ones left).
func (s *Server) pruneReleased(ctx context.Context) {
	if s.opts.Relay == nil {
		return
	}
	ctx = context.WithoutCancel(ctx)
	kvs, err := s.opts.Relay.List(ctx, relaySession, relayReleasedNS)
	if err != nil {
		s.log.Debug("drain: released requests not pruned", "err", err)
		return
	}
	now := time.Now()
	for _, kv := range kvs {
		var rc releasedCall
		if json.Unmarshal(kv.Value, &rc) == nil && now.Before(rc.Expires) {
			continue
		}
		_, _ = takeKey(ctx, s.opts.Relay, relayReleasedNS, kv.Key)
	}
}

// storeReleased stores the permission request pc waits on, reporting
// whether it did.
func (s *Server) storeReleased(ctx context.Context, pc *parkedCall) bool {
	if s.opts.Relay == nil || pc.current == nil {
		return false
	}
	req, ok := pc.current.params.Meta[permissionMetaKey].(permission.Request)
	if !ok {
		return false
	}
	b, err := json.Marshal(releasedCall{Request: req, Expires: time.Now().Add(parkTTL)})
	if err == nil {
		err = session.Put(context.WithoutCancel(ctx), s.opts.Relay, relaySession, relayReleasedNS, pc.state, b)
	}
	if err != nil {
		s.log.Warn("drain: a released call's question not stored; the client's answer will find it expired", "err", err)
		return false
	}
	return true
}

// wakeRelayed tells a replica waiting in resumeElsewhere for this call
// that it was released.
func (s *Server) wakeRelayed(ctx context.Context, state string) {
	if s.relay == nil {
		return
	}
	if err := s.relay.notifier.Notify(context.WithoutCancel(ctx), relayRounds, state); err != nil {
		s.log.Debug("drain: release not notified", "err", err)
	}
}

// releaseAsked is serve's answer to a question asked while the replica
// drains: the question goes to the client as usual, but the call is not
// kept; the answer will be recorded by whichever replica it reaches.
// Without a shared store nobody could take the answer, so the call ends
// with errDraining at once.
func (s *Server) releaseAsked(ctx context.Context, pc *parkedCall, q question) *sdk.CallToolResult {
	pc.current = &q
	stored := s.storeReleased(ctx, pc)
	pc.cancel()
	if !stored {
		return toResult(runtime.Result{}, errDraining, nil)
	}
	return &sdk.CallToolResult{
		Content:       []sdk.Content{},
		InputRequests: sdk.InputRequestMap{inputKey: q.params},
		RequestState:  pc.state,
	}
}

// answerReleased answers a retry whose call a draining replica released:
// it records the person's answer in the call's session and tells the
// client to call again. ok is false when state names no released call.
func (s *Server) answerReleased(ctx context.Context, req *sdk.CallToolRequest) (res *sdk.CallToolResult, ok bool) {
	if s.opts.Relay == nil {
		return nil, false
	}
	raw, took := takeKey(ctx, s.opts.Relay, relayReleasedNS, req.Params.RequestState)
	if !took {
		return nil, false
	}
	return s.answerRecorded(ctx, req, raw), true
}

// answerRecorded records the answer req brings to the stored question raw
// (JSON releasedCall) and tells the client to call again.
func (s *Server) answerRecorded(ctx context.Context, req *sdk.CallToolRequest, raw []byte) *sdk.CallToolResult {
	var rc releasedCall
	if err := json.Unmarshal(raw, &rc); err != nil || time.Now().After(rc.Expires) {
		return toResult(runtime.Result{}, errExpired, nil)
	}
	ans, _ := req.Params.InputResponses[inputKey].(*sdk.ElicitResult)
	reply, err := answerOf(rc.Request, ans)
	if err != nil {
		// Unanswered: nothing to record, and the call did not run.
		return toResult(runtime.Result{}, err, nil)
	}
	if reply.Kind == permission.Reject {
		var no error = &permission.RejectedError{Permission: rc.Request.Permission}
		if reply.Message != "" {
			no = &permission.CorrectedError{Permission: rc.Request.Permission, Message: reply.Message}
		}
		return toResult(runtime.Result{}, no, nil)
	}
	if err := s.reg.Permissions().RecordAnswer(ctx, rc.Request, reply); err != nil {
		return toResult(runtime.Result{}, fmt.Errorf("this call was not run: the toolhost server replica serving it shut down while it waited for this answer, and the answer could not be recorded (%w); call the tool again and answer again", err), nil)
	}
	s.log.Info("drain: answer to a released call recorded", "session", rc.Request.SessionID, "tool", rc.Request.Tool, "permission", rc.Request.Permission, "reply", reply.Kind)
	return toResult(runtime.Result{}, &releasedError{tool: req.Params.Name, reply: reply.Kind}, nil)
}

// releasedError tells the client that its answer was kept but the call
// must be made again.
type releasedError struct {
	tool  string
	reply permission.ReplyKind
}

func (e *releasedError) Error() string {
	return fmt.Sprintf("this call was not run: the toolhost server replica serving it shut down (drain) while it waited for this answer. The answer (allow %s) is recorded for this session: call %s again with the same arguments and it runs without asking again", e.reply, e.tool)
}

// elicitWhileServing sends a direct elicitation that Drain can end: its
// wait is cancelled with errDraining, which is returned.
func (s *Server) elicitWhileServing(ctx context.Context, send elicitor, p *sdk.ElicitParams) (*sdk.ElicitResult, error) {
	ectx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	key := new(int)
	s.drain.mu.Lock()
	if s.drain.on.Load() {
		s.drain.mu.Unlock()
		return nil, errDraining
	}
	if s.drain.asking == nil {
		s.drain.asking = map[*int]context.CancelCauseFunc{}
	}
	s.drain.asking[key] = cancel
	s.drain.mu.Unlock()
	defer func() {
		s.drain.mu.Lock()
		delete(s.drain.asking, key)
		s.drain.mu.Unlock()
	}()
	var res *sdk.ElicitResult
	var err error
	if c := fleetOf(ctx); c != nil && c.tr != nil {
		// Its answer may land on another replica (fleet_elicit.go).
		res, err = c.f.ask(ectx, c, func() (*sdk.ElicitResult, error) { return send(ectx, p) })
	} else {
		res, err = send(ectx, p)
	}
	if errors.Is(context.Cause(ectx), errDraining) {
		return nil, errDraining
	}
	return res, err
}
