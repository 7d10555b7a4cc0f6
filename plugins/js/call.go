package js

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/toolhost/toolhost/plugins/wasm"
)

// CallInfo is what the tool's execute sees as its context.
type CallInfo struct {
	SessionID string `json:"sessionID"`
	MessageID string `json:"messageID"`
	Agent     string `json:"agent"`
	CallID    string `json:"callID"`
	Directory string `json:"directory"`
	Worktree  string `json:"worktree"`
	// Env is the script's process.env: the variables the tool's "wasm"
	// config grants ("env"), with toolhost's values.
	Env map[string]string `json:"env,omitempty"`
}

// Limits bound one call.
type Limits struct {
	Timeout     time.Duration // script time, waits for a person excluded; 0: none
	MemoryMaxMB int           // QuickJS heap; 0: the runtime's cap
	ConfigKey   string        // where they are configured ("wasm.<id>"), for messages
	OutputBytes int           // cap on the output, checked by Tool; 0: none
}

// Output is what execute returned: a string is Output alone.
type Output struct {
	Output      string         `json:"output"`
	Title       string         `json:"title,omitempty"`
	Metadata    map[string]any `json:"metadata,omitempty"`
	Attachments []struct {
		Mime     string `json:"mime"`
		URL      string `json:"url"`
		Filename string `json:"filename,omitempty"`
	} `json:"attachments,omitempty"`
}

// ToolError is an error the tool threw: its message, for the model.
type ToolError struct{ Message string }

func (e *ToolError) Error() string { return e.Message }

// Ops answers the guest's host calls (fetch, ask, files...); see Bridge.
type Ops interface {
	Handle(ctx context.Context, s Pauser, op string, arg json.RawMessage) (any, error)
}

// Pauser is the call's clock: Pause stops it while a person is asked;
// Remaining is the script time left, which bounds a host call such as
// fetch.
type Pauser interface {
	Pause() (resume func())
	Remaining() time.Duration
}

func (s *session) Pause() func() { return s.pause() }

func (s *session) Remaining() time.Duration { return s.remaining() }

// Call runs the export's execute with args (JSON) in an instance restored
// from the file's snapshot. A thrown error is a *ToolError; running out of
// time or memory wraps wasm.ErrTimeout or wasm.ErrMemoryLimit;
// cancelling ctx stops the script.
func (f *File) Call(ctx context.Context, export string, args json.RawMessage, info CallInfo, lim Limits, ops Ops) (*Output, error) {
	v, err := f.get(ctx)
	if err != nil {
		return nil, err
	}
	s := &session{vm: v}
	if ops == nil {
		ops = &Bridge{} // nothing granted: no hosts, no paths, asks refused
	}
	s.handle = func(ctx context.Context, op string, arg json.RawMessage) (any, error) {
		return ops.Handle(ctx, s, op, arg)
	}
	if lim.Timeout > 0 {
		s.deadline = time.Now().Add(lim.Timeout)
	}
	out, err := f.run(withSession(ctx, s), v, s, export, args, info, lim)
	if err != nil {
		err = classify(ctx, s, err, lim)
	}
	// Restoring the snapshot resets everything the call did, even a
	// script stopped half-way; an instance wazero closed is dropped.
	f.put(context.WithoutCancel(ctx), v)
	return out, err
}

func (f *File) run(ctx context.Context, v *vm, s *session, export string, args json.RawMessage, info CallInfo, lim Limits) (*Output, error) {
	if lim.MemoryMaxMB > 0 {
		if _, err := v.call(ctx, "qjs_set_memory_limit", uint64(lim.MemoryMaxMB)<<20); err != nil {
			return nil, err
		}
	}
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	infoJSON, _ := json.Marshal(info)
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	if _, err := v.eval(ctx, "__toolhost.start("+q(export)+","+q(string(args))+","+q(string(infoJSON))+")", "call.js"); err != nil {
		return nil, err
	}
	for {
		if err := v.runJobs(ctx); err != nil {
			return nil, err
		}
		st, err := v.eval(ctx, "__toolhost.poll()", "poll.js")
		if err != nil {
			return nil, err
		}
		var p struct {
			Done   bool            `json:"done"`
			Wait   float64         `json:"wait"`
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal([]byte(st), &p); err != nil {
			return nil, fmt.Errorf("poll: %w", err)
		}
		if p.Done {
			var r struct {
				Output
				Error *string `json:"error"`
			}
			if err := json.Unmarshal(p.Result, &r); err != nil {
				return nil, fmt.Errorf("the tool's result: %w", err)
			}
			if r.Error != nil {
				return nil, &ToolError{Message: *r.Error}
			}
			return &r.Output, nil
		}
		if p.Wait < 0 {
			return nil, &ToolError{Message: "execute never finished: it awaits a promise that nothing will settle (no timer or request is pending)"}
		}
		wait := time.Duration(p.Wait * float64(time.Millisecond))
		if rem := s.remaining(); wait > rem {
			wait = rem
		}
		if wait > 0 {
			if err := sleep(ctx, wait); err != nil {
				return nil, err
			}
		}
		if err := s.check(ctx); err != nil {
			return nil, err
		}
		if _, err := v.eval(ctx, "__toolhost.fireTimers()", "timers.js"); err != nil {
			return nil, err
		}
	}
}

// classify names why a call failed: the time limit, cancellation, the
// memory limit, a trap, or the tool's own error.
func classify(ctx context.Context, s *session, err error, lim Limits) error {
	key := lim.ConfigKey
	if key == "" {
		key = "wasm.<tool>"
	}
	s.mu.Lock()
	stopped := s.stopped
	s.mu.Unlock()
	switch {
	case errors.Is(stopped, errDeadline):
		return fmt.Errorf("%w after %s of script time; raise %s.timeout_ms if the tool needs longer", wasm.ErrTimeout, lim.Timeout, key)
	case ctx.Err() != nil:
		return fmt.Errorf("JS tool stopped: %w", ctx.Err())
	case strings.Contains(err.Error(), "out of memory"):
		return fmt.Errorf("%w (%d MB); raise %s.memory_max_mb if the tool needs more", wasm.ErrMemoryLimit, lim.MemoryMaxMB, key)
	}
	var te *ToolError
	var je *jsError
	switch {
	case errors.As(err, &te):
		return err
	case errors.As(err, &je):
		return &ToolError{Message: je.msg}
	}
	return fmt.Errorf("%w: %w", wasm.ErrTrap, err)
}
