package agent

import (
	"context"
	"encoding/json"
	"time"

	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/permission"
)

// Event types, the "type" of an Event. `toolhost run --json` prints one
// Event per line; these names are its output contract.
const (
	// EventText is a piece of the model's answer, as it streams.
	EventText = "text"
	// EventToolCall is a call starting; State is "running".
	EventToolCall = "tool-call"
	// EventToolUpdate is live progress of a running call (Title, Metadata).
	EventToolUpdate = "tool-update"
	// EventToolResult is a call that completed: Title, Output, Metadata,
	// Attachments and Time.
	EventToolResult = "tool-result"
	// EventToolError is a call that failed; Error is what the model is told,
	// ErrorKind says why (see Event.ErrorKind).
	EventToolError = "tool-error"
	// EventPermissionAsked is a permission request put to a person.
	EventPermissionAsked = "permission-asked"
	// EventStepFinish ends one model call: Reason and Usage.
	EventStepFinish = "step-finish"
	// EventFinish ends the run: Reason, Steps and total Usage.
	EventFinish = "finish"
	// EventError is a run that failed (the model endpoint refused, the
	// connection broke); Error says why.
	EventError = "error"
)

// Tool call states, as stored in the transcript and reported in events.
const (
	StateRunning   = "running"
	StateCompleted = "completed"
	StateError     = "error"
)

// Finish reasons of a run.
const (
	// ReasonStop: the model answered without calling tools.
	ReasonStop = "stop"
	// ReasonMaxSteps: the step limit was reached.
	ReasonMaxSteps = "max-steps"
	// ReasonRejected: a person rejected a permission request, which stops
	// the run so they can give new instructions.
	ReasonRejected = "rejected"
	// ReasonLength: the model ran out of output tokens.
	ReasonLength = "length"
)

// Event is one thing that happened during a run. Fields not relevant to a
// Type are empty and omitted from JSON.
type Event struct {
	Type      string `json:"type"`
	SessionID string `json:"sessionID"`
	// Step counts model calls in this run, from 1.
	Step int    `json:"step,omitempty"`
	Text string `json:"text,omitempty"`

	CallID string          `json:"callID,omitempty"`
	Tool   string          `json:"tool,omitempty"`
	State  string          `json:"state,omitempty"`
	Input  json.RawMessage `json:"input,omitempty"`
	// RepairedFrom is the tool name the model used when it was repaired
	// (a case mismatch: "Read" → "read").
	RepairedFrom string               `json:"repairedFrom,omitempty"`
	Title        string               `json:"title,omitempty"`
	Output       string               `json:"output,omitempty"`
	Metadata     map[string]any       `json:"metadata,omitempty"`
	Attachments  []runtime.Attachment `json:"attachments,omitempty"`
	Error        string               `json:"error,omitempty"`
	// ErrorKind is "denied", "rejected" or "corrected" for permission
	// failures (a tool denied outright is "denied"), "unavailable" for a
	// tool the agent is not offered otherwise (disabled by a tools map, a
	// flag that is off), "validation" for arguments the schema refused,
	// "tool" for anything else.
	ErrorKind string  `json:"errorKind,omitempty"`
	Time      *Timing `json:"time,omitempty"`

	Permission *permission.Request `json:"permission,omitempty"`
	// ScopeNote, with Permission, says whose "always" it is when a wasm
	// or JS tool asked (permission.AlwaysNote): "jira (wasm, …) asks: bash
	// `*` — always applies to jira only". A front end shows it by the
	// question; Permission.Scope has the same as data.
	ScopeNote string `json:"scopeNote,omitempty"`

	Reason string `json:"reason,omitempty"`
	Steps  int    `json:"steps,omitempty"`
	Usage  *Usage `json:"usage,omitempty"`
}

// Timing is when a call started and ended, in Unix milliseconds.
type Timing struct {
	Start int64 `json:"start"`
	End   int64 `json:"end,omitempty"`
}

// Usage counts tokens as the endpoint reported them.
type Usage struct {
	Input  int64 `json:"input"`
	Output int64 `json:"output"`
	Total  int64 `json:"total"`
}

func (u *Usage) add(o Usage) {
	u.Input += o.Input
	u.Output += o.Output
	u.Total += o.Total
}

func nowMS() int64 { return time.Now().UnixMilli() }

// Sink receives events. It is called from several goroutines at once when
// the model calls tools in parallel, and must not block for long.
type Sink func(Event)

type sinkKey struct{}

// withSink lets a subagent started by a tool call report to the run that
// started it.
func withSink(ctx context.Context, s Sink) context.Context {
	return context.WithValue(ctx, sinkKey{}, s)
}

func sinkFrom(ctx context.Context) Sink {
	s, _ := ctx.Value(sinkKey{}).(Sink)
	return s
}

// NotifyAsker wraps a permission asker so that every request put to a
// person is reported first, as an EventPermissionAsked to sink. A nil asker
// stays nil: without one, requests that need a person are refused and
// nobody is asked.
func NotifyAsker(asker permission.Asker, sink Sink) permission.Asker {
	if asker == nil {
		return nil
	}
	return permission.AskerFunc(func(ctx context.Context, req permission.Request) (permission.Reply, error) {
		if sink != nil {
			r := req
			sink(Event{Type: EventPermissionAsked, SessionID: req.SessionID, CallID: req.CallID, Tool: req.Tool, Permission: &r, ScopeNote: permission.AlwaysNote(req)})
		}
		return asker.Ask(ctx, req)
	})
}
