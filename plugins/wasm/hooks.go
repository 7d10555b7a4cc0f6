package wasm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/toolhost/toolhost/hostfns"
	"github.com/toolhost/toolhost/runtime"
)

// The hook exports a plugin module may have (docs/abi.md, "Hooks"). Each
// takes JSON input and may return JSON output, like execute.
const (
	ExportBefore     = "tool_execute_before"
	ExportAfter      = "tool_execute_after"
	ExportDefinition = "tool_definition"
	ExportEvent      = "event"
)

var hookExports = []string{ExportBefore, ExportAfter, ExportDefinition, ExportEvent}

// DefaultHookTimeout bounds one hook call unless EngineOptions.HookTimeout
// says otherwise. Hooks run on every tool call, so they must be quick.
const DefaultHookTimeout = 5 * time.Second

// eventQueue is how many events may wait for a slow event hook before
// new ones are dropped (and logged): events are fire-and-forget.
const eventQueue = 64

// Hooks runs one plugin's hook exports for every tool call. It is a
// runtime.Hook and a runtime.DefinitionHook: add it with
// Registry.AddHook, in plugin order.
//
// A hook that fails — traps, times out, returns something unreadable — is
// logged and skipped; the call goes on as if the hook were absent. Only a
// tool_execute_before that returns {"refuse": "…"} stops a call.
type Hooks struct {
	host   *Engine
	plugin string
	mods   []*module
	// Worktree resolves relative allowed_paths of the hooks' modules.
	Worktree string

	start  sync.Once
	stop   sync.Once
	events chan eventMsg
	done   chan struct{}
}

type eventMsg struct {
	ctx  context.Context
	body []byte
}

func newHooks(h *Engine, plugin string, mods []*module) *Hooks {
	return &Hooks{host: h, plugin: plugin, mods: mods, done: make(chan struct{})}
}

// Plugin returns the name of the plugin whose hooks these are.
func (hk *Hooks) Plugin() string { return hk.plugin }

// Exports lists the hook exports the plugin's modules provide, in module
// order.
func (hk *Hooks) Exports() []string {
	var out []string
	for _, m := range hk.mods {
		out = append(out, m.hooks...)
	}
	return out
}

// RefusedError is a tool_execute_before hook refusing a call on purpose.
type RefusedError struct {
	Plugin  string
	Message string
}

func (e *RefusedError) Error() string { return fmt.Sprintf("plugin %s: %s", e.Plugin, e.Message) }

// beforeInput is what tool_execute_before receives.
type beforeInput struct {
	Tool      string          `json:"tool"`
	SessionID string          `json:"sessionID"`
	CallID    string          `json:"callID"`
	Agent     string          `json:"agent"`
	Args      json.RawMessage `json:"args"`
}

// BeforeExecute runs tool_execute_before: its output may be empty (no
// change), {"args": {…}} to replace the arguments, or {"refuse": "…"} to
// refuse the call with that message for the model.
func (hk *Hooks) BeforeExecute(ctx context.Context, in *runtime.BeforeExecute) error {
	for _, m := range hk.with(ExportBefore) {
		args := in.Args
		if len(bytes.TrimSpace(args)) == 0 {
			args = json.RawMessage("{}")
		}
		input, _ := json.Marshal(beforeInput{Tool: in.Tool, SessionID: in.SessionID, CallID: in.CallID, Agent: in.Agent, Args: args})
		out, err := hk.call(ctx, m, ExportBefore, input)
		if err != nil {
			hk.skip(ExportBefore, in.Tool, err)
			continue
		}
		var r struct {
			Args   json.RawMessage `json:"args"`
			Refuse *string         `json:"refuse"`
		}
		if err := decodeHookOutput(out, &r); err != nil {
			hk.skip(ExportBefore, in.Tool, err)
			continue
		}
		if r.Refuse != nil {
			msg := *r.Refuse
			if msg == "" {
				msg = "refused without a reason"
			}
			return &RefusedError{Plugin: hk.plugin, Message: msg}
		}
		if len(r.Args) > 0 && string(r.Args) != "null" {
			if !isJSONObject(r.Args) {
				hk.skip(ExportBefore, in.Tool, fmt.Errorf("returned args that are not a JSON object: %.100s", r.Args))
				continue
			}
			in.Args = r.Args
		}
	}
	hk.Event(ctx, "tool.execute.before", map[string]any{"tool": in.Tool, "sessionID": in.SessionID, "callID": in.CallID})
	return nil
}

// afterInput is what tool_execute_after receives.
type afterInput struct {
	Tool      string          `json:"tool"`
	SessionID string          `json:"sessionID"`
	CallID    string          `json:"callID"`
	Agent     string          `json:"agent"`
	Args      json.RawMessage `json:"args"`
	Result    afterResult     `json:"result"`
	Error     string          `json:"error,omitempty"`
}

type afterResult struct {
	Title    string         `json:"title"`
	Output   string         `json:"output"`
	Metadata map[string]any `json:"metadata"`
}

// AfterExecute runs tool_execute_after: its output may set "title",
// "output" and "metadata" (merged into the result's; a null value deletes
// a key). A failed call is shown to the hook with "error" and an empty
// result; what the hook returns then is ignored, since the call's error
// is what the model sees.
func (hk *Hooks) AfterExecute(ctx context.Context, in *runtime.AfterExecute) error {
	var errs []error
	for _, m := range hk.with(ExportAfter) {
		ai := afterInput{Tool: in.Tool, SessionID: in.SessionID, CallID: in.CallID, Agent: in.Agent, Args: in.Args}
		if len(ai.Args) == 0 {
			ai.Args = json.RawMessage("{}")
		}
		if in.Result != nil {
			ai.Result = afterResult{Title: in.Result.Title, Output: in.Result.Output, Metadata: in.Result.Metadata}
		}
		if in.Err != nil {
			ai.Error = in.Err.Error()
		}
		input, err := json.Marshal(ai)
		if err != nil {
			errs = append(errs, hk.skip(ExportAfter, in.Tool, err))
			continue
		}
		out, err := hk.call(ctx, m, ExportAfter, input)
		if err != nil {
			errs = append(errs, hk.skip(ExportAfter, in.Tool, err))
			continue
		}
		var r struct {
			Title    *string        `json:"title"`
			Output   *string        `json:"output"`
			Metadata map[string]any `json:"metadata"`
		}
		if err := decodeHookOutput(out, &r); err != nil {
			errs = append(errs, hk.skip(ExportAfter, in.Tool, err))
			continue
		}
		if in.Result == nil || in.Err != nil {
			continue
		}
		if r.Title != nil {
			in.Result.Title = *r.Title
		}
		if r.Output != nil {
			in.Result.Output = *r.Output
		}
		if len(r.Metadata) > 0 {
			if in.Result.Metadata == nil {
				in.Result.Metadata = map[string]any{}
			}
			for k, v := range r.Metadata {
				if v == nil {
					delete(in.Result.Metadata, k)
				} else {
					in.Result.Metadata[k] = v
				}
			}
		}
	}
	props := map[string]any{"tool": in.Tool, "sessionID": in.SessionID, "callID": in.CallID, "ok": in.Err == nil}
	hk.Event(ctx, "tool.execute.after", props)
	return errors.Join(errs...)
}

// definitionInput is what tool_definition receives.
type definitionInput struct {
	Tool        string          `json:"tool"`
	Agent       string          `json:"agent"`
	Model       string          `json:"model"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// Definition runs tool_definition: its output may set "description" and
// "parameters" (a JSON Schema for an object) of the tool as the model
// sees it.
func (hk *Hooks) Definition(ctx context.Context, in *runtime.DefinitionInput) error {
	var errs []error
	for _, m := range hk.with(ExportDefinition) {
		input, _ := json.Marshal(definitionInput{Tool: in.Tool, Agent: in.Agent, Model: in.Model, Description: in.Description, Parameters: in.Parameters})
		out, err := hk.call(ctx, m, ExportDefinition, input)
		if err != nil {
			errs = append(errs, hk.skip(ExportDefinition, in.Tool, err))
			continue
		}
		var r struct {
			Description *string         `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		}
		if err := decodeHookOutput(out, &r); err != nil {
			errs = append(errs, hk.skip(ExportDefinition, in.Tool, err))
			continue
		}
		if r.Description != nil {
			in.Description = *r.Description
		}
		if len(r.Parameters) > 0 && string(r.Parameters) != "null" {
			if err := checkSchema(in.Tool, r.Parameters); err != nil {
				errs = append(errs, hk.skip(ExportDefinition, in.Tool, err))
				continue
			}
			in.Parameters = r.Parameters
		}
	}
	return errors.Join(errs...)
}

// Event sends an event ({"type": typ, "properties": props}) to the
// plugin's event export without waiting: events are delivered in order
// by one goroutine per plugin, and dropped (with a log entry) when more
// than 64 are waiting. Front ends call it for session events; the hooks
// send tool.execute.before and tool.execute.after themselves.
func (hk *Hooks) Event(ctx context.Context, typ string, props any) {
	if len(hk.with(ExportEvent)) == 0 {
		return
	}
	body, err := json.Marshal(map[string]any{"type": typ, "properties": props})
	if err != nil {
		hk.skip(ExportEvent, typ, err)
		return
	}
	hk.start.Do(func() {
		hk.events = make(chan eventMsg, eventQueue)
		go hk.deliver()
	})
	select {
	case <-hk.done:
	case hk.events <- eventMsg{ctx: context.WithoutCancel(ctx), body: body}:
	default:
		hk.host.log.Warn("plugin event dropped: its event hook is too slow", "plugin", hk.plugin, "event", typ)
	}
}

var _ runtime.EventHook = (*Hooks)(nil)

// deliver runs event hooks until the plugin is unloaded.
func (hk *Hooks) deliver() {
	for {
		select {
		case <-hk.done:
			return
		case ev := <-hk.events:
			for _, m := range hk.with(ExportEvent) {
				if _, err := hk.call(ev.ctx, m, ExportEvent, ev.body); err != nil {
					hk.skip(ExportEvent, "", err)
				}
			}
		}
	}
}

// close stops event delivery; the host closes the modules.
func (hk *Hooks) close() { hk.stop.Do(func() { close(hk.done) }) }

// with returns the modules exporting a hook, in plugin order.
func (hk *Hooks) with(export string) []*module {
	var out []*module
	for _, m := range hk.mods {
		if slices.Contains(m.hooks, export) {
			out = append(out, m)
		}
	}
	return out
}

// call runs one hook export with the hook time limit.
func (hk *Hooks) call(ctx context.Context, m *module, export string, input []byte) ([]byte, error) {
	return m.invoke(ctx, hk.plugin, export, input, nil, hk.host.hookTimeout, hk.Worktree)
}

// skip reports a failed hook and returns the error, for callers that
// hand it on to the registry's log too.
func (hk *Hooks) skip(export, tool string, err error) error {
	hk.host.log.Warn("plugin hook failed; skipped", "plugin", hk.plugin, "hook", export, "tool", tool, "err", err)
	return fmt.Errorf("plugin %s hook %s: %w", hk.plugin, export, err)
}

// decodeHookOutput reads a hook's output; empty output means "no change".
func decodeHookOutput(out []byte, v any) error {
	if len(bytes.TrimSpace(out)) == 0 {
		return nil
	}
	if err := json.Unmarshal(out, v); err != nil {
		return fmt.Errorf("returned output that is not a JSON object: %w", err)
	}
	return nil
}

func isJSONObject(b json.RawMessage) bool {
	var m map[string]json.RawMessage
	return json.Unmarshal(b, &m) == nil && m != nil
}

// invoke calls one export of a module with the limits of tool id: a
// describe/call tool's call, or a hook. A timeout > 0 bounds the whole
// call, instance start included. tc is nil for hooks, which pass the
// worktree that relative allowed_paths resolve against instead.
func (m *module) invoke(ctx context.Context, id, export string, input []byte, tc *runtime.Context, timeout time.Duration, worktree string) ([]byte, error) {
	h := m.host
	wt := worktree
	if tc != nil {
		wt = tc.Worktree
	}
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, timeout, fmt.Errorf("%w: %s %s ran for more than %s", ErrTimeout, id, export, timeout))
		defer cancel()
	}
	l := m.limitsFor(h.config(), id, wt)
	c, err := m.group(ctx, l)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", id, err)
	}
	in, err := c.get(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", id, explainInstantiate(err))
	}
	logger := h.log
	if tc != nil && tc.Logger != nil {
		logger = tc.Logger
	}
	call := &hostfns.Call{Tool: id, Context: tc, Logger: logger, State: &h.state, Funcs: h.funcs, Scope: m.scope(id)}
	out, healthy, err := h.run(ctx, c, in, call, id, export, input)
	c.release(in, healthy)
	if err != nil && context.Cause(ctx) != nil && ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	return out, err
}

var (
	_ runtime.Hook           = (*Hooks)(nil)
	_ runtime.DefinitionHook = (*Hooks)(nil)
)
