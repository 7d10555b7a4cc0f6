package server

import (
	"context"
	"time"

	sdk "github.com/toolhost/toolhost/internal/third_party/gosdk/mcp"
)

// The answer nobody takes is withdrawn sooner in tests; the replicas in
// them take answers within milliseconds.
func init() { relayAckTimeout = 2 * time.Second }

// WatchedURIs lists the resources the server watches for subscribers.
func (s *Server) WatchedURIs() []string { return s.proj.watchedURIs() }

// MaxSubscriptions is maxSubscriptions, for tests.
const MaxSubscriptions = maxSubscriptions

// Connect serves one client over t (an in-memory transport in tests)
// until the client disconnects or ctx ends. Not public API: the SDK's
// types are toolhost's internal copy's (internal/third_party/gosdk).
func (s *Server) Connect(ctx context.Context, t sdk.Transport) (*sdk.ServerSession, error) {
	return s.sdk.Connect(ctx, t, nil)
}
