// Copyright 2026 The toolhost Authors. Added to the Go MCP SDK's jsonrpc2
// package by toolhost; see third_party/go-sdk/README.md.

package jsonrpc2

import (
	"context"
	"sync/atomic"
	"time"
)

// Running a request inline: on the goroutine that read it.
//
// Upstream hands every request from the reading goroutine to a handler
// goroutine. Each hand-off readies a goroutine, and when a processor is
// idle, as it is between a client's sequential calls, the runtime wakes
// another thread to look for work; that thread finds none and sleeps
// again. For a request that takes tens of microseconds this wake-up and
// its context switches cost more than the handler (toolhost's BENCHMARKS.md,
// "MCP").
//
// With ConnectionConfig.Inline, the reading goroutine runs the requests
// it selects itself, when no other request is waiting to be handled. It
// reads nothing while it does, so such a handler must be brief and must
// call [Detach] before it waits on anything but its own work: a response
// from the peer (Connection.Call detaches by itself), a person's answer, a
// long computation. Detach starts another goroutine reading, exactly as if
// the request had been handed off from the start; the handler goes on
// where it is, and its goroutine ends when the handler is done.
//
// Requests are still started in order, each after the previous one's
// release, and Async keeps its meaning: a released inline request lets the
// next one start as soon as something reads it.

// A handler that should have detached and did not — one that hangs on a
// file system, or declared itself brief and is not — is detached by a
// watchdog: while requests run inline, a goroutine looks every
// inlineTick and detaches a request it finds running at two looks in a
// row. The connection then reads on within two ticks, whatever the
// handler does. The watchdog stops after inlineIdle without an inline
// request, so an idle connection wakes nothing.
const (
	inlineTick = 10 * time.Millisecond
	inlineIdle = time.Second
)

// reading is what the reading goroutine needs to go on, for the goroutine
// that takes over from it.
type reading struct {
	ctx       context.Context
	reader    Reader
	preempter Preempter
}

// inlineRun is one request run inline.
type inlineRun struct {
	c  *Connection
	rd *reading
	// state: running, detached (another goroutine reads), or finished
	// (the handler returned first; Detach does nothing).
	state atomic.Int32
}

const (
	inlineRunning int32 = iota
	inlineDetached
	inlineFinished
)

// detach hands the reading to a new goroutine, once, if the request is
// still running.
func (r *inlineRun) detach() {
	if r.state.CompareAndSwap(inlineRunning, inlineDetached) {
		go r.c.readIncoming(r.rd.ctx, r.rd.reader, r.rd.preempter)
	}
}

// runInline runs the request acceptRequest just queued (the only one: the
// handler was idle) on the reading goroutine, and reports whether it
// detached, in which case that goroutine must stop reading.
func (c *Connection) runInline(rd *reading) (detached bool) {
	var req *incomingRequest
	c.updateInFlight(func(s *inFlightState) {
		req, s.handlerQueue = s.handlerQueue[0], s.handlerQueue[1:]
	})
	if err := req.ctx.Err(); err != nil {
		if cause := context.Cause(req.ctx); cause != nil {
			err = cause
		}
		c.processResult("handleAsync", req, nil, err)
		c.handleNext()
		return false
	}
	run := &inlineRun{c: c, rd: rd}
	c.inlineRun.Store(run)
	if !c.inlineWatched.Load() && c.inlineWatched.CompareAndSwap(false, true) {
		go c.watchInline()
	}
	r := &releaser{next: c.handleNext, inline: run}
	ctx := context.WithValue(req.ctx, asyncKey, r)
	func() {
		defer r.release(true)
		result, err := c.handler.Handle(ctx, req.Request)
		c.processResult(c.handler, req, result, err)
	}()
	c.inlineRun.CompareAndSwap(run, nil)
	return !run.state.CompareAndSwap(inlineRunning, inlineFinished)
}

// detachInline detaches the request the reading goroutine is running, if
// any.
func (c *Connection) detachInline() {
	if run := c.inlineRun.Load(); run != nil {
		run.detach()
	}
}

// Detach lets the connection read on while the calling handler goes on,
// when ctx is the context of a request run inline (see
// ConnectionConfig.Inline); otherwise it does nothing. A handler run
// inline must call it before it waits on anything but its own work.
func Detach(ctx context.Context) {
	if r, ok := ctx.Value(asyncKey).(*releaser); ok && r.inline != nil {
		r.inline.detach()
	}
}

// watchInline detaches an inline request found running at two looks in a
// row, until no request has run inline for inlineIdle or the connection
// is done.
func (c *Connection) watchInline() {
	t := time.NewTicker(inlineTick)
	defer t.Stop()
	var last *inlineRun
	idle := 0
	for {
		select {
		case <-t.C:
		case <-c.done:
			c.inlineWatched.Store(false)
			return
		}
		run := c.inlineRun.Load()
		if run != nil {
			idle = 0
			if run == last {
				run.detach()
			}
			last = run
			continue
		}
		last = nil
		if idle++; time.Duration(idle)*inlineTick < inlineIdle {
			continue
		}
		c.inlineWatched.Store(false)
		// A request that started inline between the look and the store
		// found the watchdog still on: take it up again.
		if c.inlineRun.Load() == nil || !c.inlineWatched.CompareAndSwap(false, true) {
			return
		}
		idle = 0
	}
}
