// Copyright 2026 The toolhost Authors. Added to the Go MCP SDK's jsonrpc2
// package by toolhost; see third_party/go-sdk/README.md.

package jsonrpc2

import "sync"

// maxIdleHandlers is how many handler goroutines a connection keeps
// waiting for work.
const maxIdleHandlers = 16

// handlerPool runs request handlers on goroutines kept between requests.
//
// Upstream starts a goroutine per request. A goroutine starts with a small
// stack, and an MCP tool call (decoding, the tool, encoding) grows it two
// or three times, each growth copying the stack and adjusting every frame
// on it: a sixth of the instructions of a tools/call in toolhost. A kept
// goroutine has grown already. The goroutines of a connection end when it
// is done; at most maxIdleHandlers wait at any time, the others end after
// their request.
type handlerPool struct {
	mu     sync.Mutex
	idle   []chan func()
	closed bool
}

// run runs f on an idle handler goroutine, or on a new one.
func (p *handlerPool) run(f func()) {
	p.mu.Lock()
	if n := len(p.idle); n > 0 {
		work := p.idle[n-1]
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		work <- f
		return
	}
	p.mu.Unlock()
	go p.serve(f)
}

func (p *handlerPool) serve(f func()) {
	work := make(chan func())
	for {
		f()
		p.mu.Lock()
		if p.closed || len(p.idle) >= maxIdleHandlers {
			p.mu.Unlock()
			return
		}
		p.idle = append(p.idle, work)
		p.mu.Unlock()
		var ok bool
		if f, ok = <-work; !ok {
			return
		}
	}
}

// close ends the idle goroutines, and the busy ones once they are done.
func (p *handlerPool) close() {
	p.mu.Lock()
	p.closed = true
	idle := p.idle
	p.idle = nil
	p.mu.Unlock()
	for _, work := range idle {
		close(work)
	}
}
