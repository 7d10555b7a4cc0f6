package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/permission"
)

var osGetenv = os.Getenv

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

// DoomLoopThreshold is how many identical calls in a row (same tool, same
// arguments) make the loop ask permission "doom_loop" before running the
// next: a model repeating itself is usually stuck.
const DoomLoopThreshold = 3

// outcome is what one call gives back to the model.
type outcome struct {
	content  string
	images   []runtime.Attachment
	rejected bool
}

// plannedCall is a model's call after repair, ready to run.
type plannedCall struct {
	ToolCall
	tool         string // the tool to run
	repairedFrom string
	args         json.RawMessage
	doom         bool
}

// execute runs a step's calls concurrently and returns their outcomes in
// call order. What the calls need decided in order (repair, the doom-loop
// check) is decided before any starts.
func (ru *run) execute(ctx context.Context, step int, messageID string, calls []ToolCall) []outcome {
	planned := make([]plannedCall, len(calls))
	for i, c := range calls {
		planned[i] = ru.plan(c)
	}
	outcomes := make([]outcome, len(calls))
	var wg sync.WaitGroup
	for i := range planned {
		wg.Go(func() { outcomes[i] = ru.call(ctx, step, messageID, planned[i]) })
	}
	wg.Wait()
	return outcomes
}

// plan repairs a call and checks it against the doom-loop rule.
//
// Repair: a tool name the agent is not offered but whose lower-case form is
// ("Read", "BASH") is repaired to it, as OpenCode does. Any other name, and
// arguments that are not JSON, are left to the registry: its gate refuses a
// tool this agent is not offered, and it routes an unknown tool or broken
// arguments to the invalid tool, so the model learns what went wrong.
func (ru *run) plan(c ToolCall) plannedCall {
	p := plannedCall{ToolCall: c, tool: c.Name, args: json.RawMessage(c.Arguments)}
	if !ru.offered[p.tool] {
		if lower := strings.ToLower(p.tool); ru.offered[lower] {
			p.repairedFrom, p.tool = p.tool, lower
		}
	}
	if strings.TrimSpace(c.Arguments) == "" {
		p.args = json.RawMessage("{}")
	}
	if ru.ep.Strict && json.Valid(p.args) {
		p.args = dropNulls(p.args)
	}
	ru.history = append(ru.history, callKey(p.tool, string(p.args)))
	if n := len(ru.history); n >= DoomLoopThreshold {
		last := ru.history[n-DoomLoopThreshold:]
		p.doom = last[0] == last[1] && last[1] == last[2]
	}
	return p
}

// call runs one planned call through the registry and records it.
func (ru *run) call(ctx context.Context, step int, messageID string, p plannedCall) outcome {
	state := ToolState{CallID: p.ID, MessageID: messageID, Tool: p.tool, RepairedFrom: p.repairedFrom, Status: StateRunning, Time: Timing{Start: nowMS()}}
	if json.Valid(p.args) {
		state.Input = p.args
	}
	ru.saveTool(ctx, state)
	ru.emit(Event{Type: EventToolCall, SessionID: ru.sid, Step: step, CallID: p.ID, Tool: p.tool, State: StateRunning, Input: state.Input, RepairedFrom: p.repairedFrom, Time: &Timing{Start: state.Time.Start}})

	res, err := ru.run(withSink(ctx, ru.emit), step, messageID, p)

	state.Time.End = nowMS()
	timing := state.Time
	if err != nil {
		state.Status, state.Error = StateError, err.Error()
		ru.saveTool(ctx, state)
		ru.emit(Event{Type: EventToolError, SessionID: ru.sid, Step: step, CallID: p.ID, Tool: p.tool, Error: err.Error(), ErrorKind: errorKind(err), Time: &timing})
		return outcome{content: "Error: " + err.Error(), rejected: permission.Kind(err) == permission.OutcomeRejected}
	}
	state.Status, state.Title, state.Output, state.Metadata, state.Attachments = StateCompleted, res.Title, res.Output, res.Metadata, res.Attachments
	ru.saveTool(ctx, state)
	ru.emit(Event{Type: EventToolResult, SessionID: ru.sid, Step: step, CallID: p.ID, Tool: p.tool, Title: res.Title, Output: res.Output, Metadata: res.Metadata, Attachments: res.Attachments, Time: &timing})
	o := outcome{content: res.Output}
	for _, a := range res.Attachments {
		if strings.HasPrefix(a.MIME, "image/") && strings.HasPrefix(a.URL, "data:") {
			o.images = append(o.images, a)
		} else {
			o.content += fmt.Sprintf("\n[attachment %s %s]", a.MIME, a.Filename)
		}
	}
	return o
}

// run asks doom_loop when needed, then calls the registry.
func (ru *run) run(ctx context.Context, step int, messageID string, p plannedCall) (runtime.Result, error) {
	if p.doom {
		err := ru.reg.Permissions().Ask(ctx, ru.agent.Rules, permission.Request{
			SessionID:  ru.sid,
			MessageID:  messageID,
			CallID:     p.ID,
			Tool:       p.tool,
			Permission: "doom_loop",
			Patterns:   []string{p.tool},
			Always:     []string{p.tool},
			Metadata:   map[string]any{"tool": p.tool, "input": json.RawMessage(p.args), "repeats": DoomLoopThreshold},
		})
		if err != nil {
			return runtime.Result{}, err
		}
	}
	c := runtime.Call{
		Tool:      p.tool,
		Args:      p.args,
		SessionID: ru.sid,
		MessageID: messageID,
		CallID:    p.ID,
		Agent:     ru.agent.Name,
		Model:     ru.model,
		Rules:     ru.denyRules(),
		OnMetadata: func(title string, meta map[string]any) {
			ru.emit(Event{Type: EventToolUpdate, SessionID: ru.sid, Step: step, CallID: p.ID, Tool: p.tool, State: StateRunning, Title: title, Metadata: meta})
		},
	}
	// A tool the agent is not offered (disabled, denied outright, denied to
	// this subagent session through c.Rules) is refused by the registry's
	// gate with a message saying so; an unknown one is routed to invalid.
	return ru.reg.Call(ctx, c)
}

func (ru *run) saveTool(ctx context.Context, s ToolState) {
	if err := ru.transcripts.putTool(context.WithoutCancel(ctx), ru.sid, s); err != nil {
		// The model still gets its result; only the record is incomplete.
		ru.log.Error("tool state not saved", "session", ru.sid, "call", s.CallID, "err", err)
	}
}

// callKey identifies a call for the doom-loop check: the tool and its
// arguments with insignificant whitespace removed.
func callKey(tool, args string) string {
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(args)); err != nil {
		return tool + "\x00" + args
	}
	return tool + "\x00" + b.String()
}

// dropNulls removes null members from objects. In strict mode optional
// parameters are nullable and models send null for "not given", which the
// tool's own schema (where they are simply optional) would refuse.
func dropNulls(raw json.RawMessage) json.RawMessage {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return raw
	}
	var strip func(any) any
	strip = func(v any) any {
		switch v := v.(type) {
		case map[string]any:
			for k, e := range v {
				if e == nil {
					delete(v, k)
				} else {
					v[k] = strip(e)
				}
			}
		case []any:
			for i, e := range v {
				v[i] = strip(e)
			}
		}
		return v
	}
	return mustJSON(strip(v))
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("encode %T: %v", v, err))
	}
	return b
}

func sorted(s []string) []string {
	slices.Sort(s)
	return s
}

// denyRules turns the session's denied tools into permission rules that
// travel with every call, so a tool that calls other tools (batch) cannot
// reach them either.
func (ru *run) denyRules() permission.Ruleset {
	if len(ru.req.deny) == 0 {
		return nil
	}
	rules := make(permission.Ruleset, 0, len(ru.req.deny))
	for _, id := range ru.req.deny {
		rules = append(rules, permission.Rule{Permission: ru.reg.Permission(id), Pattern: "*", Action: permission.Deny, Source: "subagent session"})
	}
	return rules
}
