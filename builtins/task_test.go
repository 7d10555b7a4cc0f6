package builtins

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/permission"
)

// fakeRunner is a SubagentRunner that records its requests and answers
// from a function.
type fakeRunner struct {
	agents []*runtime.Agent
	answer func(SubagentRequest) (SubagentResult, error)

	mu   sync.Mutex
	reqs []SubagentRequest
}

func (f *fakeRunner) Subagents() []*runtime.Agent { return f.agents }

func (f *fakeRunner) RunSubagent(ctx context.Context, req SubagentRequest) (SubagentResult, error) {
	f.mu.Lock()
	f.reqs = append(f.reqs, req)
	f.mu.Unlock()
	return f.answer(req)
}

func taskAgents() []*runtime.Agent {
	return []*runtime.Agent{
		{Name: "reviewer", Description: "Reviews diffs.", Mode: runtime.ModeSubagent},
		{Name: "explore", Description: "Explores code.", Mode: runtime.ModeSubagent},
	}
}

func TestTaskDescriptionListsTheSubagentsTheCallerMayStart(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		rules permission.Ruleset
		want  []string
		not   []string
	}{
		{"every subagent when nothing denies task", nil, []string{"- explore: Explores code.", "- reviewer: Reviews diffs."}, nil},
		{"not those denied by name", permission.Ruleset{{Permission: "task", Pattern: "reviewer", Action: permission.Deny}}, []string{"- explore:"}, []string{"reviewer"}},
		{"none when task is denied outright", permission.Ruleset{{Permission: "task", Pattern: "*", Action: permission.Deny}}, []string{"No subagents are available"}, []string{"explore", "reviewer"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tool := Task(&fakeRunner{agents: taskAgents()})
			def, err := tool.Init(context.Background(), runtime.InitContext{Agent: &runtime.Agent{Name: "build", Rules: tt.rules}})
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(def.Description, w) {
					t.Errorf("description lacks %q:\n%s", w, def.Description)
				}
			}
			for _, n := range tt.not {
				if strings.Contains(def.Description, n) {
					t.Errorf("description mentions %q:\n%s", n, def.Description)
				}
			}
		})
	}
}

func TestTaskCall(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		args    taskParams
		answer  func(SubagentRequest) (SubagentResult, error)
		ask     func(context.Context, permission.Request) error
		want    string
		wantErr string
		kind    permission.Outcome
	}{
		{
			name: "returns the final text and the task_id",
			args: taskParams{Description: "look", Prompt: "find x", SubagentType: "explore"},
			answer: func(r SubagentRequest) (SubagentResult, error) {
				r.Progress([]SubagentStep{{Tool: "grep", Status: "running"}})
				return SubagentResult{SessionID: r.SessionID, Text: "x is in y.go\n", Model: "m"}, nil
			},
			want: "\n\n<task_result>\nx is in y.go\n</task_result>",
		},
		{
			name: "asks permission task for the subagent and stops on denial",
			args: taskParams{Description: "look", Prompt: "find x", SubagentType: "reviewer"},
			ask: func(context.Context, permission.Request) error {
				return &permission.DeniedError{Permission: "task", Pattern: "reviewer"}
			},
			wantErr: "permission task denied",
			kind:    "denied",
		},
		{
			name: "a rejection inside the subagent rejects the task",
			args: taskParams{Description: "look", Prompt: "find x", SubagentType: "explore"},
			answer: func(r SubagentRequest) (SubagentResult, error) {
				return SubagentResult{SessionID: r.SessionID, Rejected: true}, nil
			},
			wantErr: "the user rejected permission to use task",
			kind:    "rejected",
		},
		{
			name:    "a failing subagent names the task_id",
			args:    taskParams{Description: "look", Prompt: "find x", SubagentType: "explore", SessionID: "ses_7"},
			answer:  func(SubagentRequest) (SubagentResult, error) { return SubagentResult{}, errors.New("endpoint down") },
			wantErr: "subagent explore (task_id ses_7): endpoint down",
		},
		{
			name:    "an empty prompt is refused before anything runs",
			args:    taskParams{Description: "look", Prompt: " ", SubagentType: "explore"},
			wantErr: "prompt is empty",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			runner := &fakeRunner{agents: taskAgents(), answer: tt.answer}
			var asked []permission.Request
			ask := func(ctx context.Context, req permission.Request) error {
				asked = append(asked, req)
				if tt.ask != nil {
					return tt.ask(ctx, req)
				}
				return nil
			}
			var titles []string
			var last map[string]any
			tc := runtime.NewContext(runtime.Context{SessionID: "ses_parent", CallID: "call_1", Agent: "build"}, func(title string, meta map[string]any) {
				titles = append(titles, title)
				last = meta
			}, ask)
			res, err := invokeTool(t, Task(runner), tc, tt.args)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || permission.Kind(err) != tt.kind {
					t.Fatalf("error %v (kind %q), want %q (kind %q)", err, permission.Kind(err), tt.wantErr, tt.kind)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(asked) != 1 || asked[0].Permission != "task" || asked[0].Patterns[0] != tt.args.SubagentType {
				t.Errorf("asked %+v, want task for %s", asked, tt.args.SubagentType)
			}
			req := runner.reqs[0]
			if req.ParentSessionID != "ses_parent" || req.ParentCallID != "call_1" || !strings.HasPrefix(req.SessionID, "ses_") || strings.Join(req.Deny, ",") != "todowrite,todoread,task" {
				t.Errorf("request %+v", req)
			}
			if !strings.HasPrefix(res.Output, "task_id: "+req.SessionID+" ") || !strings.HasSuffix(res.Output, tt.want) {
				t.Errorf("output %q", res.Output)
			}
			if res.Title != "look" || res.Metadata["sessionId"] != req.SessionID || res.Metadata["model"] != "m" {
				t.Errorf("title %q metadata %v", res.Title, res.Metadata)
			}
			if len(titles) != 2 || last["sessionId"] != req.SessionID {
				t.Errorf("progress %v %v, want an opening report and the subagent's step", titles, last)
			}
		})
	}
}
