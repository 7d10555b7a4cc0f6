package agent

import (
	"context"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/toolhost/toolhost/builtins"
	"github.com/toolhost/toolhost/internal/testkit/agenttest"
	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/config"
	"github.com/toolhost/toolhost/runtime/permission"
)

// probeTool is a stand-in for a wasm tool: it checks no permission itself
// and counts its runs.
func probeTool(ran *atomic.Int32) runtime.Tool {
	return runtime.Define("probe", "Probe something.", func(context.Context, struct{}, *runtime.Context) (runtime.Result, error) {
		ran.Add(1)
		return runtime.Result{Output: "probe ran"}, nil
	})
}

// disableProbe is the config: the tool disabled and denied.
func disableProbe(c *config.Config) {
	c.Tools = map[string]bool{"probe": false}
	c.Permission.Rules = append(c.Permission.Rules, permission.Rule{Permission: "probe", Pattern: "*", Action: permission.Deny})
	c.Experimental.BatchTool = true
}

// TestNoAgentRouteReachesAToolTheAgentIsNotOffered: the loop's own call,
// a batch in the loop, a subagent's call through task and a batch inside
// that subagent are all refused by the registry's gate, and the tool never
// runs.
func TestNoAgentRouteReachesAToolTheAgentIsNotOffered(t *testing.T) {
	t.Parallel()
	var ran atomic.Int32
	batchProbe := `{"tool_calls":[{"tool":"probe","parameters":{}}]}`
	h := newHarness(t, func(n int, req agenttest.Request) agenttest.Turn {
		results := req.ToolResults()
		if isChild(req) {
			if len(results) == 0 {
				return agenttest.Turn{ToolCalls: []agenttest.ToolCall{
					{ID: "child_probe", Name: "probe", Arguments: `{}`},
					{ID: "child_batch", Name: "batch", Arguments: batchProbe},
				}}
			}
			return agenttest.Turn{Text: "child: " + results["child_probe"] + " | " + results["child_batch"]}
		}
		if len(results) == 0 {
			return agenttest.Turn{ToolCalls: []agenttest.ToolCall{
				{ID: "p_probe", Name: "probe", Arguments: `{}`},
				{ID: "p_batch", Name: "batch", Arguments: batchProbe},
				{ID: "p_task", Name: "task", Arguments: `{"description":"probe","prompt":"call probe","subagent_type":"helper"}`},
			}}
		}
		return agenttest.Turn{Text: "done"}
	}, harnessOptions{store: true, cfg: func(c *config.Config) { subagentConfig(c); disableProbe(c) }})
	h.reg.Add(runtime.SourceWasm, probeTool(&ran))
	h.reg.Add(runtime.SourceBuiltin, builtins.Batch(), builtins.Task(h.runner))

	if _, err := h.run(Request{Prompt: "probe"}); err != nil {
		t.Fatal(err)
	}
	if n := ran.Load(); n != 0 {
		t.Fatalf("probe ran %d times", n)
	}
	reqs := h.srv.Requests()
	for _, r := range reqs {
		if slices.Contains(r.ToolNames(), "probe") {
			t.Errorf("probe was offered to the model: %v", r.ToolNames())
		}
	}
	const refused = `tool "probe" is not available to the`
	var parent map[string]string
	for _, r := range reqs {
		if !isChild(r) && len(r.ToolResults()) > 0 {
			parent = r.ToolResults()
		}
	}
	for _, id := range []string{"p_probe", "p_batch", "p_task"} {
		if !strings.Contains(parent[id], refused) {
			t.Errorf("result of %s sent to the model lacks the refusal: %q", id, parent[id])
		}
	}
	if got := parent["p_task"]; strings.Count(got, refused) != 2 {
		t.Errorf("the subagent's direct and batched calls were not both refused:\n%s", got)
	}
	for _, e := range h.eventsOf(EventToolError) {
		if e.Tool == "probe" && e.ErrorKind != "denied" {
			t.Errorf("tool-error for probe has kind %q, want denied (it is denied outright)", e.ErrorKind)
		}
	}
}
