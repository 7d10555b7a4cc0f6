package wasm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/toolhost/toolhost/hostfns"
	"github.com/toolhost/toolhost/runtime"
)

// execInput is the JSON execute receives (docs/abi.md).
type execInput struct {
	Args    json.RawMessage `json:"args"`
	Context execContext     `json:"context"`
}

type execContext struct {
	SessionID string         `json:"sessionID"`
	MessageID string         `json:"messageID"`
	Agent     string         `json:"agent"`
	CallID    string         `json:"callID"`
	Extra     map[string]any `json:"extra"`
}

// callMeta calls a description or schema export during loading.
func (h *Engine) callMeta(ctx context.Context, c *compiled, in *instance, tool, export string) ([]byte, error) {
	out, _, err := h.run(ctx, c, in, &hostfns.Call{Tool: tool, Logger: h.log, State: &h.state, Funcs: h.funcs}, tool, export, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", export, err)
	}
	return out, nil
}

// run calls one export on an instance under the limits of c and
// classifies what went wrong. healthy says whether the instance may be
// reused.
//
// The timeout counts only the guest's own running time: a timer cancels
// the call's context when it fires, and the ask host function stops the
// timer while a person is being asked (hostfns.Call.Pause). When the
// call's context is done — timer or caller — the instance is interrupted
// (interrupt.go): the guest traps at its next flush — within 1024
// iterations of the loop it is in, or when its function calls or returns — and a host
// function that blocks returns because it watches the same context.
func (h *Engine) run(ctx context.Context, c *compiled, in *instance, call *hostfns.Call, tool, export string, input []byte) (out []byte, healthy bool, err error) {
	callCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	clock := newGuestClock(c.limits.Timeout, func() { cancel(ErrTimeout) })
	defer clock.stop()
	call.Pause = clock.pause
	call.HTTP = hostfns.HTTPPolicy{AllowedHosts: c.limits.AllowedHosts, MaxResponse: int64(c.limits.OutputBytes), ConfigKey: c.limits.configKey(tool)}
	call.Sampling, call.ConfigKey = c.limits.Sampling, c.limits.configKey(tool)
	call.Memory = in.k
	stopWatch := context.AfterFunc(callCtx, in.interrupt)

	rc, out, guestMsg, err := in.call(hostfns.WithCall(callCtx, call), export, input)
	// An interrupt that raced with the end of the call leaves the flag
	// set: such an instance is not reused.
	interrupted := !stopWatch() && in.wasInterrupted()
	if err == nil && interrupted {
		err = context.Cause(callCtx)
	}
	if err != nil {
		return nil, false, h.classify(ctx, callCtx, c, in, call, tool, err)
	}
	if guestMsg != "" {
		if perm := call.PermissionError(); perm != nil && strings.Contains(guestMsg, perm.Error()) {
			return nil, true, perm // the guest gave up because permission was refused
		}
		return nil, true, &GuestError{Tool: tool, Message: guestMsg}
	}
	if rc != 0 {
		return nil, true, &GuestError{Tool: tool, Message: fmt.Sprintf("%s returned %d without an error message", tool, rc)}
	}
	if len(out) > c.limits.OutputBytes {
		return nil, false, fmt.Errorf("%w: %s returned %d bytes, over the %d MB limit; the tool should return less, or raise %s.max_output_mb in the config",
			ErrOutputLimit, tool, len(out), c.limits.OutputBytes>>20, c.limits.configKey(tool))
	}
	if !utf8.Valid(out) {
		return nil, true, fmt.Errorf("%s returned output that is not valid UTF-8 (first bad byte at offset %d); wasm tools must return text", tool, firstInvalid(out))
	}
	return out, true, nil
}

// classify explains a failed call: a trap, an exit, a timeout, a
// cancelled call or a failed host function. The caller discards the
// instance.
func (h *Engine) classify(ctx, callCtx context.Context, c *compiled, in *instance, call *hostfns.Call, tool string, err error) error {
	switch {
	case errors.Is(context.Cause(callCtx), ErrTimeout):
		return fmt.Errorf("%w: %s ran for more than %s of its own time (time waiting for permission does not count); raise %s.timeout_ms in the config if it needs longer",
			ErrTimeout, tool, c.limits.Timeout, c.limits.configKey(tool))
	case ctx.Err() != nil:
		return fmt.Errorf("%s: %w", tool, ctx.Err())
	}
	if f := call.Failure(); f != nil {
		return fmt.Errorf("%w: %s: %w", ErrHostFunc, tool, f)
	}
	if errors.Is(err, errNoExport) {
		return fmt.Errorf("%s: %w", tool, err)
	}
	if in.stderr.Contains("out of memory") || strings.Contains(err.Error(), "memory limit") {
		return fmt.Errorf("%w: %s ran out of its %d MB of memory; raise %s.memory_max_mb in the config if it needs more",
			ErrMemoryLimit, tool, c.limits.MemoryPages/16, c.limits.configKey(tool))
	}
	// wazero's message is one line and a wasm stack trace; the guest's own
	// stderr (a Go panic message) usually says more.
	detail := firstLines(err.Error(), 8)
	if head := in.stderr.Head(); head != "" {
		detail += "\nguest stderr:\n" + firstLines(head, 12)
	}
	return fmt.Errorf("%w: %s: %s", ErrTrap, tool, detail)
}

// guestClock is a timer that can be paused while the guest waits for the
// host, so the timeout measures the guest's own running time.
type guestClock struct {
	mu      sync.Mutex
	left    time.Duration
	started time.Time
	timer   *time.Timer
	fire    func()
	paused  int
}

func newGuestClock(d time.Duration, fire func()) *guestClock {
	return &guestClock{left: d, started: time.Now(), timer: time.AfterFunc(d, fire), fire: fire}
}

// pause stops the clock until the returned function is called. Nested and
// concurrent pauses are counted.
func (g *guestClock) pause() (resume func()) {
	g.mu.Lock()
	if g.paused == 0 && g.timer.Stop() {
		g.left -= time.Since(g.started)
	}
	g.paused++
	g.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			g.mu.Lock()
			defer g.mu.Unlock()
			g.paused--
			if g.paused == 0 && g.left > 0 {
				g.started = time.Now()
				g.timer = time.AfterFunc(g.left, g.fire)
			}
		})
	}
}

func (g *guestClock) stop() {
	g.mu.Lock()
	g.timer.Stop()
	g.paused = 1 << 30 // never restart
	g.mu.Unlock()
}

// execute runs one call of a tool.
func (t *wasmTool) execute(ctx context.Context, args json.RawMessage, tc *runtime.Context) (runtime.Result, error) {
	h := t.module.host
	l := t.module.limitsFor(h.config(), t.id, tc.Worktree)
	c, err := t.module.group(ctx, l)
	if err != nil {
		return runtime.Result{}, fmt.Errorf("load wasm tool %s: %w", t.id, err)
	}
	in, err := c.get(ctx)
	if err != nil {
		return runtime.Result{}, fmt.Errorf("wasm tool %s: %w", t.id, explainInstantiate(err))
	}
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	input, err := json.Marshal(execInput{Args: args, Context: execContext{
		SessionID: tc.SessionID, MessageID: tc.MessageID, Agent: tc.Agent, CallID: tc.CallID, Extra: tc.Extra,
	}})
	if err != nil {
		c.release(in, true)
		return runtime.Result{}, fmt.Errorf("encode input of %s: %w", t.id, err)
	}
	logger := tc.Logger
	if logger == nil {
		logger = h.log
	}
	call := &hostfns.Call{Tool: t.id, Context: tc, Logger: logger, State: &h.state, Funcs: h.funcs, Scope: t.module.scope(t.id)}
	out, healthy, err := h.run(ctx, c, in, call, t.id, exportName(t.export, hostfns.ExportExecute), input)
	c.release(in, healthy)
	if err != nil {
		return runtime.Result{}, err
	}
	res := parseResult(out)
	if res.Title == "" {
		res.Title = defaultTitle(t.id, args)
	}
	return res, nil
}

// parseResult reads execute's output: a JSON object with a string "output"
// is a structured result; anything else is the output text itself.
func parseResult(out []byte) runtime.Result {
	trimmed := strings.TrimSpace(string(out))
	if strings.HasPrefix(trimmed, "{") {
		var r struct {
			Output      *string              `json:"output"`
			Title       string               `json:"title"`
			Metadata    map[string]any       `json:"metadata"`
			Attachments []runtime.Attachment `json:"attachments"`
		}
		if json.Unmarshal(out, &r) == nil && r.Output != nil {
			return runtime.Result{Output: *r.Output, Title: r.Title, Metadata: r.Metadata, Attachments: r.Attachments}
		}
	}
	return runtime.Result{Output: string(out)}
}

func firstInvalid(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return -1
}

func firstLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = append(lines[:n], "…")
	}
	return strings.Join(lines, "\n")
}
