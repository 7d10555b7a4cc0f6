package agent

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/toolhost/toolhost/builtins"
	"github.com/toolhost/toolhost/runtime"
)

// Subagents lists the agents the task tool may start: mode subagent or
// all, by name.
func (r *Runner) Subagents() []*runtime.Agent {
	var out []*runtime.Agent
	for _, a := range r.reg.Agents() {
		if a.Mode == runtime.ModeSubagent || a.Mode == runtime.ModeAll {
			out = append(out, a)
		}
	}
	slices.SortFunc(out, func(a, b *runtime.Agent) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// RunSubagent runs a task in a child session: the subagent's own model, or
// the caller's; req.Deny's tools neither offered nor callable. A child
// session can only be continued from the session that started it. The
// child's events go to the run that made the task call (each carries the
// child's session id), and its tool calls to req.Progress.
func (r *Runner) RunSubagent(ctx context.Context, req builtins.SubagentRequest) (builtins.SubagentResult, error) {
	ag, err := r.reg.Agent(req.Agent)
	if err != nil {
		return builtins.SubagentResult{}, err
	}
	if ag.Mode == runtime.ModePrimary {
		return builtins.SubagentResult{}, fmt.Errorf("agent %s is a primary agent, not a subagent; choose one of the listed agent types", ag.Name)
	}
	if req.SessionID != "" {
		tr, err := r.transcripts.load(ctx, req.SessionID)
		if err != nil {
			return builtins.SubagentResult{}, err
		}
		if tr.exists && tr.Info.ParentID != req.ParentSessionID {
			return builtins.SubagentResult{}, fmt.Errorf("session %s was not started by a task of this session; leave session_id out to start a new task", req.SessionID)
		}
	}
	model := ag.Model
	if model == "" {
		model = req.Model
	}
	parent := sinkFrom(ctx)
	var mu sync.Mutex
	var steps []builtins.SubagentStep
	index := map[string]int{}
	events := func(e Event) {
		if parent != nil {
			parent(e)
		}
		switch e.Type {
		case EventToolCall, EventToolResult, EventToolError:
		default:
			return
		}
		mu.Lock()
		i, ok := index[e.CallID]
		if !ok {
			i = len(steps)
			index[e.CallID] = i
			steps = append(steps, builtins.SubagentStep{Tool: e.Tool})
		}
		steps[i].Status = map[string]string{EventToolCall: StateRunning, EventToolResult: StateCompleted, EventToolError: StateError}[e.Type]
		if e.Title != "" {
			steps[i].Title = e.Title
		}
		snapshot := slices.Clone(steps)
		mu.Unlock()
		if req.Progress != nil {
			req.Progress(snapshot)
		}
	}
	res, err := r.Run(ctx, Request{
		Prompt:    req.Prompt,
		SessionID: req.SessionID,
		Agent:     ag.Name,
		Model:     model,
		Events:    events,
		parentID:  req.ParentSessionID,
		title:     req.Description,
		deny:      req.Deny,
	})
	mu.Lock()
	defer mu.Unlock()
	out := builtins.SubagentResult{SessionID: res.SessionID, Text: res.Text, Model: model, Steps: slices.Clone(steps), Rejected: res.Reason == ReasonRejected}
	if out.Steps == nil {
		out.Steps = []builtins.SubagentStep{}
	}
	return out, err
}

var _ builtins.SubagentRunner = (*Runner)(nil)
