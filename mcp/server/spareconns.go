package server

import (
	"net"
	"net/http"
	"sync"
	"time"
)

// spareConns tracks connections that have not yet sent a request.
//
// net/http's Shutdown treats such a connection as busy for its first five
// seconds, so one spare connection an HTTP client dialled ahead and never
// used (Go's Transport does this when a request it dialled for found an
// idle connection first) held a shutdown to its deadline. Once the
// listener is closed, a request on one of them would arrive after the
// shutdown began, so closing them loses nothing the client does not retry.
type spareConns struct {
	mu    sync.Mutex
	fresh map[net.Conn]time.Time
}

// track is an http.Server ConnState hook.
func (s *spareConns) track(c net.Conn, st http.ConnState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st == http.StateNew {
		if s.fresh == nil {
			s.fresh = map[net.Conn]time.Time{}
		}
		s.fresh[c] = time.Now()
		return
	}
	delete(s.fresh, c)
}

// closeUnused closes every connection that has sent nothing for at least
// quiet, and reports how many it closed. quiet leaves a request in the
// middle of arriving to be read.
func (s *spareConns) closeUnused(quiet time.Duration) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for c, since := range s.fresh {
		if time.Since(since) >= quiet {
			c.Close()
			delete(s.fresh, c)
			n++
		}
	}
	return n
}

// closeUnusedUntil closes unused connections every interval until done
// is closed: during a shutdown, while net/http waits for its connections.
func (s *spareConns) closeUnusedUntil(done <-chan struct{}, quiet time.Duration) {
	t := time.NewTicker(quiet)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-t.C:
			s.closeUnused(quiet)
		}
	}
}
