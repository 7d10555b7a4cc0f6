package server

import (
	"bytes"
	"context"
	"net/http"
	"sync"
	"time"

	sdk "github.com/toolhost/toolhost/internal/third_party/gosdk/mcp"

	"github.com/toolhost/toolhost/runtime/session"
)

// Elicitation across a fleet (protocols before 2026-07-28). The server
// asks by sending an elicitation request on the response stream of the
// call that asks; the client answers in a new POST, which the load
// balancer may send to any replica. So the answer travels like a relayed
// round (relay.go): the replica that gets it and does not hold the asking
// call stores it under the MCP session's id and notifies fleetAnswers; the
// replica whose call asked takes it and feeds it to the transport that
// waits for it, as if the client had posted it there.
//
// Each session's transports number their requests from 1, so two calls of
// one session asking at once, on two replicas, would both wait for an
// answer with id 1. A session therefore asks one question at a time across
// the fleet: a lease in the store (fleetAskNS), taken before asking and
// given back after; a second question waits for it. An answer is thus
// always for the one question the session has open.

const (
	fleetAskNS    = "asking"            // MCP session id → lease expiry (RFC 3339)
	fleetAnswerNS = "elicit-answer"     // MCP session id → the client's response body
	fleetAnswers  = "mcp-elicit-answer" // notify channel: payload MCP session id
)

// fleetAskLease bounds how long a killed replica's lease holds up the
// session's next question; the asking replica renews it every
// fleetAskRenew while its question is open.
const (
	fleetAskLease = 10 * time.Second
	fleetAskRenew = 3 * time.Second
)

// fleetAsks are the questions this replica's calls have open.
type fleetAsks struct {
	mu    sync.Mutex
	local map[string]*sdk.StreamableServerTransport // MCP session id → the asking call's transport
}

func (a *fleetAsks) init() { a.local = map[string]*sdk.StreamableServerTransport{} }

func (a *fleetAsks) transport(id string) *sdk.StreamableServerTransport {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.local[id]
}

// listen takes the answers other replicas store for questions asked here.
func (f *fleet) listen(ctx context.Context) error {
	n, ok := f.store.(session.Notifier)
	if !ok {
		return nil
	}
	return n.Listen(ctx, fleetAnswers, func(id string) {
		if id == "" { // the listener reconnected: look at every open question
			f.asks.mu.Lock()
			ids := make([]string, 0, len(f.asks.local))
			for id := range f.asks.local {
				ids = append(ids, id)
			}
			f.asks.mu.Unlock()
			for _, id := range ids {
				go f.takeAnswer(ctx, id)
			}
			return
		}
		go f.takeAnswer(ctx, id)
	})
}

// takeAnswer feeds the stored answer of session id to the call asking
// here, if one is.
func (f *fleet) takeAnswer(ctx context.Context, id string) {
	tr := f.asks.transport(id)
	if tr == nil {
		return
	}
	raw, ok := f.take(ctx, fleetAnswerNS, id)
	if !ok {
		return
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "/", bytes.NewReader(raw))
	if err != nil {
		return
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set(headerSessionID, id)
	tr.ServeHTTP(discardResponse{h: http.Header{}}, req)
}

// deliver passes the client's answer to the call that asked for it: here
// if it asks here, else through the store to the replica where it does.
func (f *fleet) deliver(w http.ResponseWriter, r *http.Request, id string, body []byte) {
	if tr := f.asks.transport(id); tr != nil {
		tr.ServeHTTP(w, r)
		return
	}
	n, ok := f.store.(session.Notifier)
	if !ok {
		http.Error(w, "this answer is for a question another replica asked, and the session store cannot pass it on (it does not notify); use a store that does (PostgreSQL)", http.StatusServiceUnavailable)
		return
	}
	if err := session.Put(r.Context(), f.store, fleetStoreSession, fleetAnswerNS, id, body); err != nil {
		http.Error(w, "store the answer: "+err.Error()+"; retry", http.StatusServiceUnavailable)
		return
	}
	if err := n.Notify(r.Context(), fleetAnswers, id); err != nil {
		http.Error(w, "pass the answer on: "+err.Error()+"; retry", http.StatusServiceUnavailable)
		return
	}
	w.WriteHeader(http.StatusAccepted)
}

// ask sends one question of session c through send, holding the
// session's lease for it (see above).
func (f *fleet) ask(ctx context.Context, c *fleetConn, send func() (*sdk.ElicitResult, error)) (*sdk.ElicitResult, error) {
	if err := f.lease(ctx, c.id); err != nil {
		return nil, err
	}
	renewing, stopRenewing := context.WithCancel(ctx)
	renewed := make(chan struct{})
	go func() { defer close(renewed); f.renew(renewing, c.id) }()
	defer func() {
		stopRenewing()
		<-renewed // no renewal after the lease is given back
		f.asks.mu.Lock()
		delete(f.asks.local, c.id)
		f.asks.mu.Unlock()
		_ = session.Delete(context.WithoutCancel(ctx), f.store, fleetStoreSession, fleetAskNS, c.id)
	}()
	// An answer left from an earlier question (its call ended first) is
	// not this one's.
	_, _ = f.take(ctx, fleetAnswerNS, c.id)
	f.asks.mu.Lock()
	f.asks.local[c.id] = c.tr
	f.asks.mu.Unlock()
	return send()
}

// lease takes the session's question lease, waiting while another call of
// the session holds it.
func (f *fleet) lease(ctx context.Context, id string) error {
	for {
		var got bool
		now := time.Now()
		err := f.store.Update(ctx, fleetStoreSession, fleetAskNS, id, func(old []byte, exists bool) ([]byte, error) {
			var until time.Time
			if exists && until.UnmarshalText(old) == nil && now.Before(until) {
				got = false
				return old, nil
			}
			got = true
			return now.Add(fleetAskLease).MarshalText()
		})
		if err != nil {
			return err
		}
		if got {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// renew extends the session's lease until ctx ends.
func (f *fleet) renew(ctx context.Context, id string) {
	t := time.NewTicker(fleetAskRenew)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			until, _ := time.Now().Add(fleetAskLease).MarshalText()
			if err := session.Put(ctx, f.store, fleetStoreSession, fleetAskNS, id, until); err != nil && ctx.Err() == nil {
				f.s.log.Warn("question lease not renewed; another call of the session may ask meanwhile", "err", err)
			}
		}
	}
}

// take deletes key of ns and returns what it held, in one transaction.
func (f *fleet) take(ctx context.Context, ns, key string) ([]byte, bool) {
	var out []byte
	var took bool
	err := f.store.Update(ctx, fleetStoreSession, ns, key, func(old []byte, exists bool) ([]byte, error) {
		out, took = old, exists
		return nil, nil
	})
	return out, err == nil && took
}

// discardResponse is the response to an answer fed to a transport: the
// client was answered (202) by the replica that got it.
type discardResponse struct{ h http.Header }

func (d discardResponse) Header() http.Header         { return d.h }
func (d discardResponse) Write(b []byte) (int, error) { return len(b), nil }
func (d discardResponse) WriteHeader(int)             {}
