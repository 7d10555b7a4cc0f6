package python

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/toolhost/toolhost/hostfns"
	"github.com/toolhost/toolhost/plugins/js"
	"github.com/toolhost/toolhost/plugins/wasm"
)

// CallInfo, Limits, Output and ToolError are package js's: a Python tool's
// call is described and bounded as a JS tool's is.
type (
	CallInfo  = js.CallInfo
	Limits    = js.Limits
	Output    = js.Output
	ToolError = js.ToolError
)

// hostOps are the requests a Python tool may make; anything else is
// refused before it reaches the Bridge (files go through WASI mounts).
var hostOps = map[string]bool{"ask": true, "metadata": true, "call": true, "fetch": true, "log": true, "sample": true, "elicit": true}

// Call runs the tool def with args (JSON) in an instance started with sb.
// An exception is a *ToolError; running out of time or memory wraps
// wasm.ErrTimeout or wasm.ErrMemoryLimit; cancelling ctx stops the
// script.
func (f *File) Call(ctx context.Context, def Def, args json.RawMessage, info CallInfo, lim Limits, sb Sandbox, ops js.Ops) (*Output, error) {
	sb.MemoryMaxMB = lim.MemoryMaxMB
	in, err := f.take(ctx, sb)
	if err != nil {
		return nil, err
	}
	defer f.refill(sb)
	defer in.cancel(nil)
	if ops == nil {
		ops = &js.Bridge{Tool: def.ID}
	}
	// What the tool printed (fd 2, and print(), which the runner points
	// there) goes to toolhost's log, attributed to the tool.
	defer func() {
		if out := strings.TrimRight(in.stderr.String(), "\n"); out != "" {
			arg, _ := json.Marshal(hostfns.LogEntry{Level: "info", Message: out})
			ops.Handle(context.WithoutCancel(ctx), nil, "log", arg)
		}
	}()
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	clk := newClock(in, lim.Timeout)
	stopWatch := context.AfterFunc(ctx, func() { in.cancel(context.Cause(ctx)) })
	defer stopWatch()
	if err := in.send(map[string]any{"fn": def.Function, "ctx": def.Context, "args": args, "info": info}); err != nil {
		return nil, f.classify(ctx, in, err, lim)
	}
	for {
		m, err := in.next()
		if err != nil {
			return nil, f.classify(ctx, in, err, lim)
		}
		switch {
		case m.Op == "result":
			clk.stop()
			var out Output
			if err := json.Unmarshal(m.Value, &out); err != nil {
				return nil, fmt.Errorf("the tool's result: %w", err)
			}
			return &out, nil
		case m.Op == "error" && m.Kind == "memory":
			return nil, memoryError(lim)
		case m.Op == "error":
			return nil, &ToolError{Message: m.Message}
		case hostOps[m.Op]:
			val, herr := ops.Handle(ctx, clk, m.Op, m.Arg)
			reply := map[string]any{"value": val}
			if herr != nil {
				reply = map[string]any{"error": herr.Error()}
			}
			if err := in.send(reply); err != nil {
				return nil, f.classify(ctx, in, err, lim)
			}
		default:
			if err := in.send(map[string]any{"error": fmt.Sprintf("unknown host call %q", m.Op)}); err != nil {
				return nil, f.classify(ctx, in, err, lim)
			}
		}
	}
}

func memoryError(lim Limits) error {
	return fmt.Errorf("%w (%d MB); raise %s.memory_max_mb if the tool needs more", wasm.ErrMemoryLimit, lim.MemoryMaxMB, configKey(lim))
}

func configKey(lim Limits) string {
	if lim.ConfigKey == "" {
		return "wasm.<tool>"
	}
	return lim.ConfigKey
}

// classify names why an instance ended without a result.
func (f *File) classify(ctx context.Context, in *instance, err error, lim Limits) error {
	cause := context.Cause(in.ctx)
	switch {
	case errors.Is(cause, errDeadline) || errors.Is(err, errDeadline):
		return fmt.Errorf("%w after %s of script time; raise %s.timeout_ms if the tool needs longer", wasm.ErrTimeout, lim.Timeout, configKey(lim))
	case ctx.Err() != nil:
		return fmt.Errorf("Python tool stopped: %w", ctx.Err())
	case memoryFull(in.mod, in.memMB) || strings.Contains(in.stderr.String(), "MemoryError"):
		return memoryError(lim)
	case errors.Is(cause, errProtocol):
		return fmt.Errorf("%w: %w", wasm.ErrTrap, errProtocol)
	}
	return fmt.Errorf("%w: Python ended without a result: %w\n%s", wasm.ErrTrap, err, lastLines(in.stderr.String(), 5))
}

// clock is the call's script time: it stops the instance when the limit
// is spent, and stands still while a person is asked (Pause).
type clock struct {
	in *instance

	mu      sync.Mutex
	left    time.Duration // 0: no limit
	since   time.Time
	paused  bool
	stopped bool
}

func newClock(in *instance, d time.Duration) *clock {
	c := &clock{in: in, left: d, since: time.Now()}
	in.limit(d, errDeadline)
	return c
}

// Pause stops the clock until the returned func is called.
func (c *clock) Pause() func() {
	c.mu.Lock()
	if c.left > 0 && !c.paused {
		c.left -= time.Since(c.since)
		c.paused = true
		c.in.limit(0, nil)
	}
	c.mu.Unlock()
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.paused && !c.stopped {
			c.paused, c.since = false, time.Now()
			c.in.limit(max(c.left, time.Millisecond), errDeadline)
		}
	}
}

// Remaining is the script time left (a day when there is no limit).
func (c *clock) Remaining() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.left == 0:
		return 24 * time.Hour
	case c.paused:
		return c.left
	}
	return c.left - time.Since(c.since)
}

func (c *clock) stop() {
	c.mu.Lock()
	c.stopped = true
	c.mu.Unlock()
	c.in.limit(0, nil)
}

var _ js.Pauser = (*clock)(nil)
