package server

import (
	"context"
	"encoding/json"
	"time"

	sdk "github.com/toolhost/toolhost/internal/third_party/gosdk/mcp"

	"github.com/toolhost/toolhost/runtime/permission"
	"github.com/toolhost/toolhost/runtime/session"
)

// A parked call outlives a crash of its replica. A replica that is killed
// (kill -9, a lost node) cannot release its parked calls as a drain does
// (drain.go), so each parked call leaves its permission request in the
// store from the moment it parks (namespace relayParkedNS, by
// requestState) until it is resumed, expires or is released. A retry that
// reaches another replica hands the answer on (relay.go); when no replica
// takes it within relayAckTimeout, the replica that holds the call is
// gone, and its stored request is answered as a released one: the answer
// is recorded in the session and the client told to call again, which
// then runs without asking.

// relayParkedNS holds, by requestState, the permission request of every
// call parked on some replica (JSON releasedCall).
const relayParkedNS = "parked"

// storeParked records the question pc waits on.
func (s *Server) storeParked(ctx context.Context, pc *parkedCall) {
	if s.opts.Relay == nil || pc.current == nil {
		return
	}
	rc, ok := releasedOf(pc)
	if !ok {
		return
	}
	b, err := json.Marshal(rc)
	if err == nil {
		err = session.Put(context.WithoutCancel(ctx), s.opts.Relay, relaySession, relayParkedNS, pc.state, b)
	}
	if err != nil {
		s.log.Warn("a parked call's question not stored; if this replica dies, its answer is lost", "err", err)
	}
}

// forgetParked deletes the record of a call no longer parked here.
func (s *Server) forgetParked(state string) {
	if s.opts.Relay == nil {
		return
	}
	_, _ = takeKey(context.Background(), s.opts.Relay, relayParkedNS, state)
}

// answerOrphaned answers a retry whose call's replica is gone, from the
// call's stored question; ok is false when none is stored.
func (s *Server) answerOrphaned(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, bool) {
	if s.opts.Relay == nil {
		return nil, false
	}
	raw, took := takeKey(ctx, s.opts.Relay, relayParkedNS, req.Params.RequestState)
	if !took {
		return nil, false
	}
	s.log.Info("the replica holding a parked call is gone; its answer is recorded for the retry", "tool", req.Params.Name)
	return s.answerRecorded(ctx, req, raw), true
}

func permissionOf(p *sdk.ElicitParams) (permission.Request, bool) {
	r, ok := p.Meta[permissionMetaKey].(permission.Request)
	return r, ok
}

// releasedOf is what a replica stores of pc's question.
func releasedOf(pc *parkedCall) (releasedCall, bool) {
	r, ok := permissionOf(pc.current.params)
	if !ok {
		return releasedCall{}, false
	}
	return releasedCall{Request: r, Expires: time.Now().Add(parkTTL)}, true
}
