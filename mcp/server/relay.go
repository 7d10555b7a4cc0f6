package server

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	sdk "github.com/toolhost/toolhost/internal/third_party/gosdk/mcp"

	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/session"
)

// Answers across replicas. Behind a load balancer the retry that answers a
// parked call (parked.go) may reach a replica other than the one running
// the call. A call in flight stays where it started — it holds goroutines,
// a wasm instance, a child process — so the answer travels to it instead:
//
//  1. the replica that got the retry and holds no such call stores the
//     answer under the call's requestState and notifies relayAnswers;
//  2. the replica holding the call takes the answer (deleting it, which is
//     the acknowledgement), resumes the call, and stores what the round
//     ends with — the next question or the result — notifying relayRounds;
//  3. the first replica reads that and answers the client's request.
//
// Notifications are hints (session.Notifier): each side re-reads the store
// when its listener reconnects. An answer no replica takes within
// relayAckTimeout is withdrawn and the client told the call is no longer
// waiting, as when it expired.

const (
	relaySession  = "toolhost-mcp-parked" // the store's session id for relayed rounds
	relayAnswerNS = "answer"              // requestState → the client's answer (JSON)
	relayRoundNS  = "round"               // requestState → the round's CallToolResult (JSON)
	relayAnswers  = "mcp-parked-answer"   // notify channel: payload requestState
	relayRounds   = "mcp-parked-round"    // notify channel: payload requestState
)

// BookkeepingSessions are the session ids under which the server keeps
// state shared by all its calls (relayed answers and rounds, released
// calls), rather than a client's: a store's retention should expire their
// rows one by one (pgstore.Store.SweepRowsOf), not with the session.
func BookkeepingSessions() []string { return []string{relaySession, fleetStoreSession} }

// relayAckTimeout is how long a replica waits for another to take an
// answer before deciding that no replica holds the call. A variable only
// so the tests of an answer nobody takes need not wait it out.
var relayAckTimeout = 10 * time.Second

// relay is the shared store and its notifier; nil fields mean calls are
// answered only on the replica running them.
type relay struct {
	store    session.Store
	notifier session.Notifier
	ctx      context.Context // ends with the server
	stop     context.CancelFunc
}

// startRelay listens for answers meant for calls parked here.
func (s *Server) startRelay(ctx context.Context, store session.Store) error {
	n, ok := store.(session.Notifier)
	if store == nil || !ok {
		return nil
	}
	lctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s.relay = &relay{store: store, notifier: n, ctx: lctx, stop: cancel}
	return n.Listen(lctx, relayAnswers, func(state string) {
		go s.takeRelayed(lctx, state)
	})
}

// takeRelayed resumes the call parked here under state with the answer
// another replica stored; the empty state (the listener reconnected)
// looks at every stored answer.
func (s *Server) takeRelayed(ctx context.Context, state string) {
	r := s.relay
	if state == "" {
		kvs, err := r.store.List(ctx, relaySession, relayAnswerNS)
		if err != nil {
			s.log.Warn("relayed answers not read", "err", err)
			return
		}
		for _, kv := range kvs {
			s.takeRelayed(ctx, kv.Key)
		}
		return
	}
	pc := s.parked.take(state)
	if pc == nil {
		return // another replica's call, or already answered
	}
	raw, took := takeKey(ctx, r.store, relayAnswerNS, state)
	if !took {
		// The answering replica withdrew it; park the call again so
		// a later retry can still answer it.
		s.parked.put(pc)
		return
	}
	pc.expiry.Stop()
	s.opts.Metrics.relayTaken()
	s.forgetParked(state)
	// An answer that does not decode is no answer: the call is refused
	// (answerOf), never allowed.
	var ans *sdk.ElicitResult
	if err := json.Unmarshal(raw, &ans); err != nil {
		ans = nil
	}
	pc.current.answer <- ans
	pc.current = nil
	pc.progress.retarget(ctx, nil, nil)
	rctx, cancel := context.WithTimeout(ctx, parkTTL)
	defer cancel()
	res := s.serve(rctx, pc)
	b, err := json.Marshal(res)
	if err == nil {
		err = session.Put(ctx, r.store, relaySession, relayRoundNS, state, b)
	}
	if err == nil {
		err = r.notifier.Notify(ctx, relayRounds, state)
	}
	if err != nil {
		s.log.Warn("relayed round not handed back", "err", err)
	}
}

// takeKey deletes key and returns what it held, in one transaction: of two
// replicas taking it, one gets it.
func takeKey(ctx context.Context, store session.Store, ns, key string) ([]byte, bool) {
	var out []byte
	var took bool
	err := store.Update(ctx, relaySession, ns, key, func(old []byte, exists bool) ([]byte, error) {
		out, took = old, exists
		return nil, nil
	})
	if err != nil {
		return nil, false
	}
	return out, took
}

// resumeElsewhere hands the answer of req to the replica holding its call
// and waits for the round it ends with.
func (s *Server) resumeElsewhere(ctx context.Context, req *sdk.CallToolRequest) *sdk.CallToolResult {
	r := s.relay
	state := req.Params.RequestState
	wake := make(chan struct{}, 1)
	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if err := r.notifier.Listen(lctx, relayRounds, func(p string) {
		if p == state || p == "" {
			select {
			case wake <- struct{}{}:
			default:
			}
		}
	}); err != nil {
		s.opts.Metrics.relayed(outcomeStoreError)
		return storeUnavailable(err)
	}
	// A retry without an answer (or with one of another kind) hands the
	// call nil, as resume does.
	ans, _ := req.Params.InputResponses[inputKey].(*sdk.ElicitResult)
	b, _ := json.Marshal(ans)
	if err := session.Put(ctx, r.store, relaySession, relayAnswerNS, state, b); err != nil {
		s.opts.Metrics.relayed(outcomeStoreError)
		return storeUnavailable(err)
	}
	if err := r.notifier.Notify(ctx, relayAnswers, state); err != nil {
		s.opts.Metrics.relayed(outcomeStoreError)
		return storeUnavailable(err)
	}
	ack := time.NewTimer(relayAckTimeout)
	defer ack.Stop()
	for {
		if raw, ok := takeKey(ctx, r.store, relayRoundNS, state); ok {
			s.opts.Metrics.relayed(outcomeAnswered)
			var res sdk.CallToolResult
			if err := json.Unmarshal(raw, &res); err != nil {
				return toResult(runtime.Result{}, fmt.Errorf("the replica running this call sent a round that does not decode: %w", err), nil)
			}
			return &res
		}
		// Released by a draining replica (drain.go): withdraw the
		// answer nobody will take, and record it instead.
		if res, ok := s.answerReleased(ctx, req); ok {
			_, _ = takeKey(context.WithoutCancel(ctx), r.store, relayAnswerNS, state)
			s.opts.Metrics.relayed(outcomeReleased)
			return res
		}
		select {
		case <-wake:
		case <-ack.C:
			if _, withdrawn := takeKey(ctx, r.store, relayAnswerNS, state); withdrawn {
				s.opts.Metrics.relayed(outcomeAckTimeout)
				// Nobody holds the call: its replica died
				// (parked_store.go), or it expired.
				if res, ok := s.answerOrphaned(ctx, req); ok {
					return res
				}
				s.log.Info("relayed answer not taken by any replica in time; the call is gone", "ack_timeout", relayAckTimeout)
				return toResult(runtime.Result{}, errExpired, nil)
			}
		case <-ctx.Done():
			// The client gave up; withdraw an answer not yet taken.
			_, _ = takeKey(context.WithoutCancel(ctx), r.store, relayAnswerNS, state)
			s.opts.Metrics.relayed(outcomeCancelled)
			return toResult(runtime.Result{}, ctx.Err(), nil)
		}
	}
}

// storeUnavailable answers a retry whose answer could not be stored; the
// call stays parked and the client may retry.
func storeUnavailable(err error) *sdk.CallToolResult {
	return toResult(runtime.Result{}, fmt.Errorf("this answer could not be passed to the server replica running the call; retry: %w", err), nil)
}
