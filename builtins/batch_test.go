package builtins

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/config"
	"github.com/toolhost/toolhost/runtime/permission"
)

type echoParams struct {
	Text string `json:"text"`
}

// batchHarness is a registry with batch and a few test tools, recording
// permission requests and hook calls.
type batchHarness struct {
	reg *runtime.Registry

	mu      sync.Mutex
	asks    []permission.Request
	hookIDs []string
}

func (h *batchHarness) BeforeExecute(_ context.Context, in *runtime.BeforeExecute) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.hookIDs = append(h.hookIDs, in.Tool+"@"+in.CallID)
	return nil
}

func (h *batchHarness) AfterExecute(context.Context, *runtime.AfterExecute) error { return nil }

func newBatchHarness(t *testing.T) *batchHarness {
	t.Helper()
	h := &batchHarness{}
	dir := t.TempDir()
	reg, err := runtime.NewRegistry(runtime.Options{
		Config: &config.Config{
			Experimental: config.Experimental{BatchTool: true},
			Tools:        map[string]bool{"off": false},
		},
		Directory: dir,
		DataDir:   t.TempDir(),
		Agents: map[string]*runtime.Agent{"build": {Name: "build", Rules: permission.Ruleset{
			{Permission: "*", Pattern: "*", Action: permission.Allow},
			{Permission: "guarded", Pattern: "*", Action: permission.Ask},
			{Permission: "undeclared", Pattern: "*", Action: permission.Ask},
		}}},
		Asker: permission.AskerFunc(func(_ context.Context, req permission.Request) (permission.Reply, error) {
			h.mu.Lock()
			defer h.mu.Unlock()
			h.asks = append(h.asks, req)
			if strings.Contains(req.Patterns[0], "reject") {
				return permission.Reply{Kind: permission.Reject}, nil
			}
			return permission.Reply{Kind: permission.Once}, nil
		}),
	})
	if err != nil {
		t.Fatal(err)
	}
	var started sync.WaitGroup
	started.Add(2)
	reg.Add(runtime.SourceBuiltin,
		Batch(), Invalid(),
		runtime.Define("echo", "Echoes text.", func(_ context.Context, p echoParams, _ *runtime.Context) (runtime.Result, error) {
			return runtime.Result{Title: "echo " + p.Text, Output: p.Text}, nil
		}),
		runtime.Define("fail", "Always fails.", func(_ context.Context, p echoParams, _ *runtime.Context) (runtime.Result, error) {
			return runtime.Result{}, errors.New("failed on purpose: " + p.Text)
		}),
		runtime.WithOwnPermission(runtime.Define("guarded", "Asks permission.", func(ctx context.Context, p echoParams, tc *runtime.Context) (runtime.Result, error) {
			if err := tc.Ask(ctx, permission.Request{Permission: "guarded", Patterns: []string{p.Text}}); err != nil {
				return runtime.Result{}, err
			}
			return runtime.Result{Title: "guarded", Output: "allowed " + p.Text}, nil
		})),
		// undeclared does not check its own permission, so the gate asks
		// "undeclared" before it runs.
		runtime.Define("undeclared", "Checks nothing itself.", func(_ context.Context, p echoParams, _ *runtime.Context) (runtime.Result, error) {
			return runtime.Result{Title: "undeclared", Output: "undeclared ran " + p.Text}, nil
		}),
		// off is disabled by the config's tools map: no route reaches it.
		runtime.Define("off", "Disabled by config.", func(_ context.Context, p echoParams, _ *runtime.Context) (runtime.Result, error) {
			return runtime.Result{Title: "off ran", Output: "off ran " + p.Text}, nil
		}),
		// rendezvous returns only once two calls of it run at the same
		// time, so a batch that ran calls one by one would never finish.
		runtime.Define("rendezvous", "Waits for a partner.", func(ctx context.Context, p echoParams, _ *runtime.Context) (runtime.Result, error) {
			started.Done()
			done := make(chan struct{})
			go func() { started.Wait(); close(done) }()
			select {
			case <-done:
				return runtime.Result{Title: "met", Output: "met " + p.Text}, nil
			case <-ctx.Done():
				return runtime.Result{}, fmt.Errorf("no partner arrived: %w", ctx.Err())
			}
		}),
	)
	reg.AddHook(h)
	h.reg = reg
	return h
}

func (h *batchHarness) run(t *testing.T, ctx context.Context, calls []batchCall) (runtime.Result, error) {
	t.Helper()
	args, err := json.Marshal(batchParams{ToolCalls: calls})
	if err != nil {
		t.Fatal(err)
	}
	return h.reg.Call(ctx, runtime.Call{Tool: batchToolName, Args: args, SessionID: "ses", MessageID: "msg", CallID: "b"})
}

func details(t *testing.T, res runtime.Result) []batchOutcome {
	t.Helper()
	d, ok := res.Metadata["details"].([]batchOutcome)
	if !ok {
		t.Fatalf("metadata details is %T", res.Metadata["details"])
	}
	return d
}

func TestBatchRunsEveryCallAndReportsThemInOrder(t *testing.T) {
	t.Parallel()
	h := newBatchHarness(t)
	res, err := h.run(t, context.Background(), []batchCall{
		{Tool: "echo", Parameters: map[string]any{"text": "one"}},
		{Tool: "fail", Parameters: map[string]any{"text": "two"}},
		{Tool: "nosuch", Parameters: map[string]any{}},
		{Tool: "batch", Parameters: map[string]any{"tool_calls": []any{}}},
		{Tool: "echo", Parameters: map[string]any{"text": 5}},
		{Tool: "echo", Parameters: map[string]any{"text": "six"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.Output, "Executed 2/6 tools successfully. 4 failed.") {
		t.Errorf("summary: %q", res.Output)
	}
	if res.Title != "Batch execution (2/6 successful)" {
		t.Errorf("title %q", res.Title)
	}
	want := []struct {
		success bool
		text    string
	}{
		{true, "one"},
		{false, "failed on purpose: two"},
		{false, "Tool 'nosuch' not in registry. Available tools: echo, fail, guarded, rendezvous"},
		{false, "Tool 'batch' is not allowed in batch"},
		{false, "invalid arguments"},
		{true, "six"},
	}
	d := details(t, res)
	last := -1
	for i, w := range want {
		if d[i].Success != w.success {
			t.Errorf("call %d success = %v, want %v (%+v)", i, d[i].Success, w.success, d[i])
		}
		at := strings.Index(res.Output, w.text)
		if at < 0 {
			t.Errorf("output lacks %q for call %d:\n%s", w.text, i, res.Output)
			continue
		}
		if at < last {
			t.Errorf("call %d is reported out of order", i)
		}
		last = at
	}
	if got := res.Metadata["tools"]; !slices.Equal(got.([]string), []string{"echo", "fail", "nosuch", "batch", "echo", "echo"}) {
		t.Errorf("tools %v", got)
	}
}

func TestBatchCallsGoThroughHooksAndPermissions(t *testing.T) {
	t.Parallel()
	h := newBatchHarness(t)
	res, err := h.run(t, context.Background(), []batchCall{
		{Tool: "guarded", Parameters: map[string]any{"text": "first"}},
		{Tool: "guarded", Parameters: map[string]any{"text": "second"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	d := details(t, res)
	if !d[0].Success || !d[1].Success {
		t.Fatalf("details %+v, want both allowed", d)
	}
	if !strings.Contains(res.Output, "allowed first") || !strings.Contains(res.Output, "allowed second") {
		t.Errorf("output:\n%s", res.Output)
	}
	// A rejection is one call's failure, reported as such.
	res, err = h.run(t, context.Background(), []batchCall{{Tool: "guarded", Parameters: map[string]any{"text": "reject me"}}})
	if err != nil {
		t.Fatal(err)
	}
	if d := details(t, res); d[0].Success || !strings.Contains(d[0].Error, "the user rejected permission to use guarded") {
		t.Errorf("details %+v, want the rejection", d)
	}

	h.mu.Lock()
	defer h.mu.Unlock()
	var callIDs []string
	for _, a := range h.asks {
		callIDs = append(callIDs, a.CallID)
		if a.SessionID != "ses" {
			t.Errorf("sub-call asked in session %q, want the batch's", a.SessionID)
		}
	}
	slices.Sort(callIDs)
	if !slices.Equal(callIDs, []string{"b-0", "b-0", "b-1"}) {
		t.Errorf("permission requests came from calls %q, want b-0, b-1, then b-0 of the second batch", callIDs)
	}
	slices.Sort(h.hookIDs)
	if !slices.Equal(h.hookIDs, []string{"batch@b", "batch@b", "guarded@b-0", "guarded@b-0", "guarded@b-1"}) {
		t.Errorf("hooks saw %q", h.hookIDs)
	}
}

// TestBatchReachesOnlyWhatTheAgentIsOffered: every call of a batch goes
// through the registry's gate with the batch's agent, model and per-call
// rules, so a batch (and a batch inside a task) cannot reach a tool a
// direct call could not.
func TestBatchReachesOnlyWhatTheAgentIsOffered(t *testing.T) {
	t.Parallel()
	taskDenies := permission.Ruleset{{Permission: "echo", Pattern: "*", Action: permission.Deny, Source: "subagent session"}}
	tests := []struct {
		name      string
		call      batchCall
		rules     permission.Ruleset
		wantOK    bool
		wantText  string
		wantAsked bool
	}{
		{"a tool the config's tools map disables is refused and never runs", batchCall{Tool: "off", Parameters: map[string]any{"text": "x"}}, nil, false, `tool "off" is not available to the build agent: the config disables it with "tools": {"off": false}`, false},
		{"a tool the per-call rules deny outright is refused", batchCall{Tool: "echo", Parameters: map[string]any{"text": "x"}}, taskDenies, false, `tool "echo" is not available to the build agent: permission echo "*": deny (subagent session) denies it to this call`, false},
		{"the per-call rules leave other tools offered", batchCall{Tool: "fail", Parameters: map[string]any{"text": "x"}}, taskDenies, false, "failed on purpose: x", false},
		{"a tool without its own check is asked about under its id first", batchCall{Tool: "undeclared", Parameters: map[string]any{"text": "x"}}, nil, true, "undeclared ran x", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newBatchHarness(t)
			args, _ := json.Marshal(batchParams{ToolCalls: []batchCall{tt.call}})
			res, err := h.reg.Call(context.Background(), runtime.Call{Tool: batchToolName, Args: args, SessionID: "ses", CallID: "b", Rules: tt.rules})
			if err != nil {
				t.Fatal(err)
			}
			d := details(t, res)
			if d[0].Success != tt.wantOK || !strings.Contains(res.Output, tt.wantText) {
				t.Errorf("details %+v, want success %v and output containing %q:\n%s", d, tt.wantOK, tt.wantText, res.Output)
			}
			if strings.Contains(res.Output, "off ran") {
				t.Error("the disabled tool ran")
			}
			h.mu.Lock()
			defer h.mu.Unlock()
			asked := slices.ContainsFunc(h.asks, func(r permission.Request) bool {
				return r.Permission == tt.call.Tool && slices.Equal(r.Patterns, []string{"*"}) && r.CallID == "b-0"
			})
			if asked != tt.wantAsked {
				t.Errorf("gate asked %v for %s (asks %+v), want %v", asked, tt.call.Tool, h.asks, tt.wantAsked)
			}
		})
	}
}

func TestBatchRunsCallsConcurrently(t *testing.T) {
	t.Parallel()
	h := newBatchHarness(t)
	// Only a batch that ran calls one after another would hit this deadline.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := h.run(t, ctx, []batchCall{
		{Tool: "rendezvous", Parameters: map[string]any{"text": "a"}},
		{Tool: "rendezvous", Parameters: map[string]any{"text": "b"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.Output, "All 2 tools executed successfully.") {
		t.Errorf("output:\n%s", res.Output)
	}
}

func TestBatchRunsAtMost25Calls(t *testing.T) {
	t.Parallel()
	h := newBatchHarness(t)
	var calls []batchCall
	for i := range 27 {
		calls = append(calls, batchCall{Tool: "echo", Parameters: map[string]any{"text": fmt.Sprint("n", i)}})
	}
	res, err := h.run(t, context.Background(), calls)
	if err != nil {
		t.Fatal(err)
	}
	if res.Title != "Batch execution (25/27 successful)" {
		t.Errorf("title %q", res.Title)
	}
	d := details(t, res)
	for i, o := range d {
		if (i < 25) != o.Success {
			t.Errorf("call %d success %v", i, o.Success)
		}
		if i >= 25 && o.Error != "Maximum of 25 tools allowed in batch" {
			t.Errorf("call %d error %q", i, o.Error)
		}
	}
	if strings.Contains(res.Output, "n25") || strings.Contains(res.Output, "n26") {
		t.Errorf("calls beyond 25 ran")
	}
}

func TestBatchValidationErrorShowsThePayloadFormat(t *testing.T) {
	t.Parallel()
	h := newBatchHarness(t)
	_, err := h.reg.Call(context.Background(), runtime.Call{Tool: batchToolName, Args: json.RawMessage(`{"tool_calls": []}`), SessionID: "s"})
	if err == nil || !strings.Contains(err.Error(), "Invalid parameters for tool 'batch'") || !strings.Contains(err.Error(), "Expected payload format") {
		t.Errorf("error %v, want the batch-specific validation message", err)
	}
}

func TestBatchWithoutARegistryIsAnError(t *testing.T) {
	t.Parallel()
	tc := runtime.NewContext(runtime.Context{SessionID: "s"}, nil, nil)
	_, err := invokeTool(t, Batch(), tc, batchParams{ToolCalls: []batchCall{{Tool: "echo"}}})
	if err == nil || !strings.Contains(err.Error(), "registry") {
		t.Errorf("error %v", err)
	}
}

func TestBatchDescriptionIsRenderedFromTheLimit(t *testing.T) {
	t.Parallel()
	if !strings.Contains(batchDescription(), "1 to 25 tool calls") || strings.Contains(batchDescription(), "{{") {
		t.Errorf("description:\n%s", batchDescription())
	}
}
