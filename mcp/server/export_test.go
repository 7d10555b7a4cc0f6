package server

import (
	"context"
	"io"
	"time"
)

// The answer nobody takes is withdrawn sooner in tests; the replicas in
// them take answers within milliseconds.
func init() { relayAckTimeout = 2 * time.Second }

// WatchedURIs lists the resources the server watches for subscribers.
func (s *Server) WatchedURIs() []string { return s.proj.watchedURIs() }

// MaxSubscriptions is maxSubscriptions, for tests.
const MaxSubscriptions = maxSubscriptions

// ServeStream serves one client over r and w as ServeStdio does over the
// process's stdin and stdout.
func (s *Server) ServeStream(ctx context.Context, r io.ReadCloser, w io.Writer) error {
	return s.serveStream(ctx, r, w)
}

// MaxBatch is maxBatch, for tests.
const MaxBatch = maxBatch

// AppendResult is appendResult, for tests.
var AppendResult = appendResult

// StdinInput is stdinInput, for tests: how ServeStdio reads its stdin.
var StdinInput = stdinInput
