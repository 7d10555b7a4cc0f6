package builtins

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/toolhost/toolhost/internal/content/textfill"
	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/permission"
)

// taskToolName is the task tool's id, and the permission it asks (the
// pattern is the subagent's name).
const taskToolName = "task"

//go:embed task.txt
var taskDescriptionTemplate string

//go:embed task_none.txt
var taskDescriptionNone string

// taskDescription lists the subagents in task.txt, one "- name:
// description" line each.
func taskDescription(agents []*runtime.Agent) string {
	if len(agents) == 0 {
		return taskDescriptionNone
	}
	var b strings.Builder
	for _, a := range agents {
		fmt.Fprintf(&b, "\n- %s: %s", a.Name, a.Description)
	}
	return textfill.MustFill("task.txt", taskDescriptionTemplate, map[string]any{"Agents": b.String()})
}

// taskParams are the task tool's arguments.
type taskParams struct {
	Description  string `json:"description" jsonschema:"description=A short (3-5 words) description of the task"`
	Prompt       string `json:"prompt" jsonschema:"description=The task for the agent to perform"`
	SubagentType string `json:"subagent_type" jsonschema:"description=The type of specialized agent to use for this task"`
	SessionID    string `json:"session_id,omitempty" jsonschema:"description=The task_id of an earlier task to continue that subagent session; leave out to start a new one"`
}

// SubagentDeniedTools are the tools a subagent session never gets: todo
// lists belong to the agent talking to the user, and a subagent starting
// subagents would recurse without bound.
var SubagentDeniedTools = []string{"todowrite", "todoread", taskToolName}

// SubagentRequest asks a SubagentRunner to run one task.
type SubagentRequest struct {
	// Agent is the subagent to run (mode subagent or all).
	Agent string
	// Prompt is the subagent's instructions; Description the task's title.
	Prompt      string
	Description string
	// SessionID is the child session: a new id for a new task, or the
	// task_id of an earlier task to continue it.
	SessionID string
	// ParentSessionID, ParentCallID and CallerAgent say who started it.
	ParentSessionID string
	ParentCallID    string
	CallerAgent     string
	// Model is the caller's model, used unless the subagent names its own.
	Model string
	// Deny are tools the child session must not use (SubagentDeniedTools).
	Deny []string
	// Progress, when set, receives the child's tool calls so far each time
	// one starts or finishes.
	Progress func(steps []SubagentStep)
}

// SubagentStep is one tool call of a subagent, for progress reports.
type SubagentStep struct {
	Tool   string `json:"tool"`
	Title  string `json:"title,omitempty"`
	Status string `json:"status"`
}

// SubagentResult is how a task ended.
type SubagentResult struct {
	// SessionID is the child session, the task_id to continue it.
	SessionID string
	// Text is the subagent's final answer.
	Text string
	// Model is the model that ran it.
	Model string
	// Steps are the subagent's tool calls in this task.
	Steps []SubagentStep
	// Rejected reports that a person rejected one of the subagent's
	// permission requests, which stopped it.
	Rejected bool
}

// SubagentRunner runs subagents. The agent loop implements it; builtins
// must not import the loop, so the host hands one to Task.
type SubagentRunner interface {
	// Subagents lists the agents a task may start (mode subagent or all).
	Subagents() []*runtime.Agent
	// RunSubagent runs one task to its end.
	RunSubagent(ctx context.Context, req SubagentRequest) (SubagentResult, error)
}

// Task returns the task tool: it runs a subagent in a child session whose
// tools exclude SubagentDeniedTools, and returns the subagent's final
// answer with the child session id (task_id) to continue it. Its
// description lists the subagents the calling agent may start — those its
// rules do not deny for permission "task" with the subagent's name as
// pattern — and a call asks that permission. A person rejecting a request
// inside the subagent rejects the task too, so the caller stops as well.
// Result metadata: sessionId, agent, model, summary (the child's tool calls).
func Task(runner SubagentRunner) runtime.Tool {
	schema := sync.OnceValue(runtime.SchemaFor[taskParams]) // on first Init (runtime.DefineDynamic says why)
	return runtime.Declare(runtime.ToolFunc{Name: taskToolName, InitFunc: func(ctx context.Context, ic runtime.InitContext) (*runtime.Definition, error) {
		return &runtime.Definition{
			Description: taskDescription(usableSubagents(runner, ic.Agent)),
			Parameters:  schema(),
			Execute: func(ctx context.Context, args json.RawMessage, tc *runtime.Context) (runtime.Result, error) {
				var p taskParams
				if err := json.Unmarshal(args, &p); err != nil {
					return runtime.Result{}, fmt.Errorf("decode task arguments: %w", err)
				}
				return runTask(ctx, runner, ic, p, tc)
			},
		}, nil
	}}, taskTraits(runner))
}

// taskTraits: asks "task" for the subagent's name itself; delegates, which
// changes the truncation hint; offered only where a subagent can run.
func taskTraits(runner SubagentRunner) runtime.Traits {
	return runtime.Traits{ChecksOwnPermission: true, Delegates: true, Hints: &runtime.Hints{}, Available: func(env runtime.Env) error {
		return taskAvailable(runner, env)
	}}
}

// taskAvailable refuses the task tool where no subagent could run: without
// a runner, or without a model for a subagent to run on — neither the
// caller's (env.Model: --model, or "model" in the config) nor one a
// subagent names itself. Offered there, every call would fail after the
// model had planned around it (toolhost mcp with no model configured).
func taskAvailable(runner SubagentRunner, env runtime.Env) error {
	if runner == nil {
		return runtime.NotOffered("this host runs no subagents", "")
	}
	if env.Model != "" {
		return nil
	}
	for _, a := range runner.Subagents() {
		if a.Model != "" {
			return nil
		}
	}
	return runtime.NotOffered("no model is configured for subagents to run on", `set "model" in toolhost.json (e.g. "model": "ollama/qwen3"), pass --model, or give a subagent its own "model"`)
}

// usableSubagents are the subagents caller's rules do not deny.
func usableSubagents(runner SubagentRunner, caller *runtime.Agent) []*runtime.Agent {
	if runner == nil {
		return nil
	}
	var rules permission.Ruleset
	if caller != nil {
		rules = caller.Rules
	}
	var out []*runtime.Agent
	for _, a := range runner.Subagents() {
		if rule, _ := permission.Evaluate(taskToolName, a.Name, rules); rule.Action != permission.Deny {
			out = append(out, a)
		}
	}
	slices.SortFunc(out, func(a, b *runtime.Agent) int { return strings.Compare(a.Name, b.Name) })
	return out
}

func runTask(ctx context.Context, runner SubagentRunner, ic runtime.InitContext, p taskParams, tc *runtime.Context) (runtime.Result, error) {
	if runner == nil {
		return runtime.Result{}, errors.New("subagents are not available in this host; do the task yourself")
	}
	if strings.TrimSpace(p.Prompt) == "" {
		return runtime.Result{}, errors.New("prompt is empty; say what the subagent should do and report")
	}
	var names []string
	found := false
	for _, a := range runner.Subagents() {
		names = append(names, a.Name)
		found = found || a.Name == p.SubagentType
	}
	if !found {
		slices.Sort(names)
		return runtime.Result{}, fmt.Errorf("unknown agent type %q; available: %s", p.SubagentType, strings.Join(names, ", "))
	}
	if err := tc.Ask(ctx, permission.Request{
		Permission: taskToolName,
		Patterns:   []string{p.SubagentType},
		Always:     []string{"*"},
		Metadata:   map[string]any{"description": p.Description, "subagent_type": p.SubagentType},
	}); err != nil {
		return runtime.Result{}, err
	}
	sid := p.SessionID
	if sid == "" {
		sid = runtime.NewID("ses")
	}
	meta := func(steps []SubagentStep) map[string]any {
		return map[string]any{"sessionId": sid, "agent": p.SubagentType, "summary": steps}
	}
	tc.Metadata(p.Description, meta([]SubagentStep{}))
	res, err := runner.RunSubagent(ctx, SubagentRequest{
		Agent:           p.SubagentType,
		Prompt:          p.Prompt,
		Description:     p.Description,
		SessionID:       sid,
		ParentSessionID: tc.SessionID,
		ParentCallID:    tc.CallID,
		CallerAgent:     tc.Agent,
		Model:           ic.Model,
		Deny:            slices.Clone(SubagentDeniedTools),
		Progress:        func(steps []SubagentStep) { tc.Metadata(p.Description, meta(steps)) },
	})
	if err != nil {
		return runtime.Result{}, fmt.Errorf("subagent %s (task_id %s): %w", p.SubagentType, sid, err)
	}
	if res.Rejected {
		return runtime.Result{}, &permission.RejectedError{Permission: taskToolName}
	}
	m := meta(res.Steps)
	m["sessionId"], m["model"] = res.SessionID, res.Model
	return runtime.Result{
		Title:    p.Description,
		Output:   fmt.Sprintf("task_id: %s (pass as session_id to continue this task)\n\n<task_result>\n%s\n</task_result>", res.SessionID, strings.TrimSpace(res.Text)),
		Metadata: m,
	}, nil
}
