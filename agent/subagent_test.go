package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/builtins"
	"github.com/toolhost/toolhost/internal/testkit/agenttest"
	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/config"
	"github.com/toolhost/toolhost/runtime/permission"
)

// isChild tells the helper subagent's requests from the parent's by the
// system prompt, which names the agent.
func isChild(req agenttest.Request) bool {
	return len(req.Messages) > 0 && strings.Contains(req.Messages[0].Text(), "the helper agent")
}

func subagentConfig(c *config.Config) {
	c.Agent = map[string]config.AgentConfig{
		"helper": {Mode: runtime.ModeSubagent, Description: "Finds answers."},
		"secret": {Mode: runtime.ModeSubagent, Description: "Not for build."},
	}
	c.Permission.Rules = permission.Ruleset{{Permission: "task", Pattern: "secret", Action: permission.Deny}}
}

func newTaskHarness(t *testing.T, script agenttest.Script) *harness {
	h := newHarness(t, script, harnessOptions{store: true, cfg: subagentConfig, tools: []runtime.Tool{builtins.TodoWrite(), builtins.TodoRead()}})
	h.reg.Add(runtime.SourceBuiltin, builtins.Task(h.runner))
	return h
}

func TestTaskRunsASubagentInAChildSession(t *testing.T) {
	t.Parallel()
	h := newTaskHarness(t, func(n int, req agenttest.Request) agenttest.Turn {
		results := req.ToolResults()
		if isChild(req) {
			if len(results) == 0 {
				return agenttest.Turn{ToolCalls: []agenttest.ToolCall{
					{ID: "c_echo", Name: "echo", Arguments: `{"text":"looking"}`},
					{ID: "c_todo", Name: "todowrite", Arguments: `{"todos":[]}`},
				}}
			}
			return agenttest.Turn{Text: "child found 42; todo said: " + results["c_todo"]}
		}
		if len(results) == 0 {
			return agenttest.Turn{ToolCalls: []agenttest.ToolCall{{ID: "p_task", Name: "task", Arguments: `{"description":"find answer","prompt":"find the answer","subagent_type":"helper"}`}}}
		}
		return agenttest.Turn{Text: "Parent done."}
	})
	res, err := h.run(Request{Prompt: "delegate"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Reason != ReasonStop || res.Text != "Parent done." {
		t.Fatalf("result %+v", res)
	}
	var parentFirst, childFirst *agenttest.Request
	var parentLast agenttest.Request
	for _, r := range h.srv.Requests() {
		switch {
		case isChild(r) && childFirst == nil:
			childFirst = &r
		case !isChild(r) && parentFirst == nil:
			parentFirst = &r
		case !isChild(r):
			parentLast = r
		}
	}
	if childFirst == nil || parentFirst == nil {
		t.Fatal("the subagent never called the model")
	}
	i := slices.Index(parentFirst.ToolNames(), "task")
	if i < 0 || !slices.Contains(parentFirst.ToolNames(), "todowrite") {
		t.Fatalf("parent tools %v, want task and todowrite", parentFirst.ToolNames())
	}
	desc := parentFirst.Tools[i].Function.Description
	if !strings.Contains(desc, "- helper: Finds answers.") || strings.Contains(desc, "secret") || strings.Contains(desc, "- explore:") == false {
		t.Errorf("task description lists the wrong agents:\n%s", desc)
	}
	for _, denied := range builtins.SubagentDeniedTools {
		if slices.Contains(childFirst.ToolNames(), denied) {
			t.Errorf("child session was offered %s: %v", denied, childFirst.ToolNames())
		}
	}
	out := parentLast.ToolResults()["p_task"]
	if !strings.HasPrefix(out, "task_id: ses_") || !strings.Contains(out, `<task_result>`+"\n"+`child found 42; todo said: Error: tool "todowrite" is not available to the helper agent: permission todowrite "*": deny (subagent session) denies it to this call`) {
		t.Errorf("task result sent to the parent:\n%s", out)
	}

	var taskResult Event
	childSessions := map[string]bool{}
	for _, e := range h.eventsOf(EventToolResult) {
		if e.Tool == "task" {
			taskResult = e
		} else if e.SessionID != res.SessionID {
			childSessions[e.SessionID] = true
		}
	}
	childID, _ := taskResult.Metadata["sessionId"].(string)
	if childID == "" || !childSessions[childID] || len(childSessions) != 1 {
		t.Errorf("task metadata %v; child events came from sessions %v", taskResult.Metadata, childSessions)
	}
	if steps, _ := json.Marshal(taskResult.Metadata["summary"]); !strings.Contains(string(steps), `"tool":"echo"`) || !strings.Contains(string(steps), `"status":"completed"`) {
		t.Errorf("task summary %s, want the child's calls", steps)
	}
	tr, err := h.runner.Transcript(context.Background(), childID)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Info.ParentID != res.SessionID || tr.Info.Agent != "helper" || tr.Info.Title != "find answer" {
		t.Errorf("child session info %+v", tr.Info)
	}
}

func TestTaskRefusals(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args string
		want string
	}{
		{"an agent the caller's rules deny is refused by permission", `{"description":"d","prompt":"p","subagent_type":"secret"}`, "permission task denied"},
		{"an unknown agent type lists the available ones", `{"description":"d","prompt":"p","subagent_type":"nobody"}`, `unknown agent type "nobody"; available: explore, helper, secret`},
		{"a primary agent cannot be a subagent", `{"description":"d","prompt":"p","subagent_type":"build"}`, "unknown agent type"},
		{"a session that no task of this session started cannot be continued", `{"description":"d","prompt":"p","subagent_type":"helper","session_id":"ses_other"}`, "was not started by a task of this session"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newTaskHarness(t, answerAfterTools([]agenttest.ToolCall{{ID: "t1", Name: "task", Arguments: tt.args}}, "ok"))
			// ses_other exists and belongs to nobody.
			if err := h.runner.transcripts.put(context.Background(), "ses_other", keyInfo, Info{ID: "ses_other"}); err != nil {
				t.Fatal(err)
			}
			if _, err := h.run(Request{Prompt: "go"}); err != nil {
				t.Fatal(err)
			}
			reqs := h.srv.Requests()
			if got := reqs[len(reqs)-1].ToolResults()["t1"]; !strings.Contains(got, tt.want) {
				t.Errorf("task result %q, want %q", got, tt.want)
			}
		})
	}
}

func TestTaskContinuesItsChildSession(t *testing.T) {
	t.Parallel()
	var childID string
	h := newTaskHarness(t, func(n int, req agenttest.Request) agenttest.Turn {
		if isChild(req) {
			users := 0
			for _, m := range req.Messages {
				if m.Role == "user" {
					users++
				}
			}
			return agenttest.Turn{Text: fmt.Sprintf("child has seen %d prompts", users)}
		}
		results := req.ToolResults()
		switch len(results) {
		case 0:
			return agenttest.Turn{ToolCalls: []agenttest.ToolCall{{ID: "t1", Name: "task", Arguments: `{"description":"d","prompt":"first","subagent_type":"helper"}`}}}
		case 1:
			childID = strings.Fields(results["t1"])[1]
			args, _ := json.Marshal(map[string]string{"description": "d", "prompt": "second", "subagent_type": "helper", "session_id": childID})
			return agenttest.Turn{ToolCalls: []agenttest.ToolCall{{ID: "t2", Name: "task", Arguments: string(args)}}}
		}
		return agenttest.Turn{Text: "done"}
	})
	if _, err := h.run(Request{Prompt: "go"}); err != nil {
		t.Fatal(err)
	}
	reqs := h.srv.Requests()
	got := reqs[len(reqs)-1].ToolResults()["t2"]
	if !strings.Contains(got, "task_id: "+childID) || !strings.Contains(got, "child has seen 2 prompts") {
		t.Errorf("continued task result %q, want the same task_id %s and a child that saw both prompts", got, childID)
	}
}
