package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolhost/toolhost/builtins"
	"github.com/toolhost/toolhost/internal/testkit/agenttest"
	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/config"
	"github.com/toolhost/toolhost/runtime/permission"
	"github.com/toolhost/toolhost/runtime/session"
)

// harness is a registry with test tools, a scripted model server and a
// Runner pointed at it.
type harness struct {
	t      *testing.T
	srv    *agenttest.Server
	reg    *runtime.Registry
	runner *Runner
	store  session.Store

	mu     sync.Mutex
	events []Event
}

type harnessOptions struct {
	strict bool
	asker  permission.Asker
	store  bool
	cfg    func(*config.Config)
	tools  []runtime.Tool
}

const testModel = "test/fake-model"

func newHarness(t *testing.T, script agenttest.Script, o harnessOptions) *harness {
	t.Helper()
	h := &harness{t: t, srv: agenttest.New(t, script)}
	cfg := config.Default()
	cfg.Provider = map[string]config.Provider{"test": {BaseURL: h.srv.URL, APIKey: "sk-test", Strict: o.strict}}
	if o.cfg != nil {
		o.cfg(cfg)
	}
	if o.store {
		st, err := session.Open(filepath.Join(t.TempDir(), "sessions.db"))
		if err != nil {
			t.Fatal(err)
		}
		h.store = st
	}
	dir := t.TempDir()
	asker := NotifyAsker(o.asker, h.sink)
	reg, err := runtime.NewRegistry(runtime.Options{Config: cfg, Store: h.store, Asker: asker, DataDir: t.TempDir(), Directory: dir})
	if err != nil {
		t.Fatal(err)
	}
	reg.Add(runtime.SourceBuiltin, builtins.Invalid(), echoTool(), guardedTool(), levelTool())
	reg.Add(runtime.SourceRuntime, o.tools...)
	h.reg = reg
	h.runner = New(Options{Registry: reg, Store: h.store, Env: func(string) string { return "" }, Directory: dir, Worktree: dir})
	return h
}

func (h *harness) sink(e Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.events = append(h.events, e)
}

func (h *harness) run(req Request) (Result, error) {
	h.t.Helper()
	if req.Model == "" {
		req.Model = testModel
	}
	req.Events = h.sink
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	return h.runner.Run(ctx, req)
}

func (h *harness) eventsOf(typ string) []Event {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []Event
	for _, e := range h.events {
		if e.Type == typ {
			out = append(out, e)
		}
	}
	return out
}

func (h *harness) text() string {
	var b strings.Builder
	for _, e := range h.eventsOf(EventText) {
		b.WriteString(e.Text)
	}
	return b.String()
}

type echoParams struct {
	Text string `json:"text" jsonschema:"description=What to echo"`
}

func echoTool() runtime.Tool {
	return runtime.Define("echo", "Echo text back.", func(_ context.Context, p echoParams, _ *runtime.Context) (runtime.Result, error) {
		return runtime.Result{Title: "echo " + p.Text, Output: "echo: " + p.Text, Metadata: map[string]any{"length": len(p.Text)}}, nil
	})
}

type guardedParams struct {
	Target string `json:"target"`
}

// guardedTool asks permission "guarded" for its target before it runs, and
// declares so: the registry's gate leaves the question to it.
func guardedTool() runtime.Tool {
	return runtime.WithOwnPermission(runtime.Define("guarded", "Touch a guarded target.", func(ctx context.Context, p guardedParams, tc *runtime.Context) (runtime.Result, error) {
		if err := tc.Ask(ctx, permission.Request{Permission: "guarded", Patterns: []string{p.Target}, Always: []string{"*"}}); err != nil {
			return runtime.Result{}, err
		}
		return runtime.Result{Title: p.Target, Output: "touched " + p.Target}, nil
	}))
}

type levelParams struct {
	Level int    `json:"level" jsonschema:"enum=1,enum=2,enum=3"`
	Note  string `json:"note,omitempty"`
}

func levelTool() runtime.Tool {
	return runtime.Define("level", "Set a level.", func(_ context.Context, p levelParams, _ *runtime.Context) (runtime.Result, error) {
		return runtime.Result{Output: fmt.Sprintf("level %d note %q", p.Level, p.Note)}, nil
	})
}

// meetTool is a pair of calls that each wait for the other to start: it
// succeeds only when the loop runs them at the same time.
func meetTool() runtime.Tool {
	var wg sync.WaitGroup
	wg.Add(2)
	met := make(chan struct{})
	go func() { wg.Wait(); close(met) }()
	return runtime.Define("meet", "Wait for the other caller.", func(ctx context.Context, p echoParams, _ *runtime.Context) (runtime.Result, error) {
		wg.Done()
		select {
		case <-met:
			return runtime.Result{Output: "met as " + p.Text}, nil
		case <-ctx.Done():
			return runtime.Result{}, ctx.Err()
		case <-time.After(20 * time.Second):
			return runtime.Result{}, errors.New("the other call never started: parallel calls ran one after another")
		}
	})
}

// answerAfterTools calls tools first, then answers text once results came.
func answerAfterTools(calls []agenttest.ToolCall, final string) agenttest.Script {
	return func(n int, req agenttest.Request) agenttest.Turn {
		if n == 0 {
			return agenttest.Turn{Text: "Let me look.", ToolCalls: calls}
		}
		return agenttest.Turn{Text: final}
	}
}

func once(context.Context, permission.Request) (permission.Reply, error) {
	return permission.Reply{Kind: permission.Once}, nil
}

func TestRunParallelCallsSplitAcrossChunks(t *testing.T) {
	t.Parallel()
	h := newHarness(t, answerAfterTools([]agenttest.ToolCall{
		{ID: "call_a", Name: "meet", Arguments: `{"text":"alpha"}`},
		{ID: "call_b", Name: "meet", Arguments: `{"text":"beta, with a longer argument string"}`},
	}, "Both met."), harnessOptions{tools: []runtime.Tool{meetTool()}})

	res, err := h.run(Request{Prompt: "meet twice"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Reason != ReasonStop || res.Steps != 2 || res.Text != "Both met." {
		t.Errorf("result %+v, want stop after 2 steps with the final text", res)
	}
	reqs := h.srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	got := reqs[1].ToolResults()
	want := map[string]string{"call_a": "met as alpha", "call_b": "met as beta, with a longer argument string"}
	for id, out := range want {
		if got[id] != out {
			t.Errorf("tool result for %s = %q, want %q (all: %v)", id, got[id], out, got)
		}
	}
	if h.text() != "Let me look.Both met." {
		t.Errorf("streamed text %q", h.text())
	}
	if n := len(h.eventsOf(EventToolCall)); n != 2 {
		t.Errorf("%d tool-call events, want 2", n)
	}
	for _, e := range h.eventsOf(EventToolCall) {
		if e.State != StateRunning || e.Time == nil || e.Time.Start == 0 {
			t.Errorf("tool-call event %+v: want state running with a start time", e)
		}
	}
	results := h.eventsOf(EventToolResult)
	if len(results) != 2 {
		t.Fatalf("%d tool-result events, want 2: %+v", len(results), h.eventsOf(EventToolError))
	}
	for _, e := range results {
		if e.Time == nil || e.Time.End < e.Time.Start {
			t.Errorf("tool-result %s timing %+v", e.CallID, e.Time)
		}
	}
	steps := h.eventsOf(EventStepFinish)
	if len(steps) != 2 || steps[0].Usage == nil || steps[0].Usage.Total == 0 || steps[0].Reason != "tool_calls" {
		t.Errorf("step-finish events %+v, want 2 with usage, the first for tool_calls", steps)
	}
	fin := h.eventsOf(EventFinish)
	if len(fin) != 1 || fin[0].Reason != ReasonStop || fin[0].Usage.Total != steps[0].Usage.Total+steps[1].Usage.Total {
		t.Errorf("finish events %+v", fin)
	}
}

func TestRunRepairsAndRoutesBadCalls(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		call       agenttest.ToolCall
		wantTool   string
		wantResult string // substring of what the model is sent back
		repaired   string
	}{
		{
			name:       "a tool name in the wrong case is repaired to the tool",
			call:       agenttest.ToolCall{ID: "c1", Name: "Echo", Arguments: `{"text":"hi"}`},
			wantTool:   "echo",
			wantResult: "echo: hi",
			repaired:   "Echo",
		},
		{
			name:       "an unknown tool is routed to invalid, which lists the tools",
			call:       agenttest.ToolCall{ID: "c1", Name: "frobnicate", Arguments: `{}`},
			wantTool:   "frobnicate",
			wantResult: "Model tried to call unavailable tool 'frobnicate'. Available tools: echo, guarded, level.",
		},
		{
			name:       "arguments that are not JSON are routed to invalid",
			call:       agenttest.ToolCall{ID: "c1", Name: "echo", Arguments: `{"text": "unterminated`},
			wantTool:   "echo",
			wantResult: "The arguments for tool 'echo' are not valid JSON",
		},
		{
			name:       "arguments the schema refuses come back as a tool error",
			call:       agenttest.ToolCall{ID: "c1", Name: "echo", Arguments: `{"txt":"typo"}`},
			wantTool:   "echo",
			wantResult: "Error: ",
		},
		{
			name:       "a tool that exists but is not offered is refused as not available, not run",
			call:       agenttest.ToolCall{ID: "c1", Name: "invalid", Arguments: `{"tool":"x","error":"y"}`},
			wantTool:   "invalid",
			wantResult: `Error: tool "invalid" is not available to the build agent`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, answerAfterTools([]agenttest.ToolCall{tt.call}, "ok"), harnessOptions{})
			res, err := h.run(Request{Prompt: "go"})
			if err != nil {
				t.Fatal(err)
			}
			if res.Reason != ReasonStop {
				t.Errorf("reason %q, want the model to continue and stop", res.Reason)
			}
			reqs := h.srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d requests, want 2", len(reqs))
			}
			if got := reqs[1].ToolResults()["c1"]; !strings.Contains(got, tt.wantResult) {
				t.Errorf("model was sent %q, want it to contain %q", got, tt.wantResult)
			}
			calls := h.eventsOf(EventToolCall)
			if len(calls) != 1 || calls[0].Tool != tt.wantTool || calls[0].RepairedFrom != tt.repaired {
				t.Errorf("tool-call events %+v, want tool %q repaired from %q", calls, tt.wantTool, tt.repaired)
			}
		})
	}
}

func TestRunPermissions(t *testing.T) {
	t.Parallel()
	guarded := []agenttest.ToolCall{{ID: "g1", Name: "guarded", Arguments: `{"target":"prod"}`}}
	tests := []struct {
		name       string
		asker      permission.Asker
		wantReason string
		wantResult string
		wantKind   string
		wantAsked  bool
		wantReqs   int
	}{
		{
			name:       "a person allowing once lets the call run",
			asker:      permission.AskerFunc(once),
			wantReason: ReasonStop, wantResult: "touched prod", wantAsked: true, wantReqs: 2,
		},
		{
			name: "a person rejecting stops the run",
			asker: permission.AskerFunc(func(context.Context, permission.Request) (permission.Reply, error) {
				return permission.Reply{Kind: permission.Reject}, nil
			}),
			wantReason: ReasonRejected, wantKind: "rejected", wantAsked: true, wantReqs: 1,
		},
		{
			name: "a person correcting tells the model and the run continues",
			asker: permission.AskerFunc(func(context.Context, permission.Request) (permission.Reply, error) {
				return permission.Reply{Kind: permission.Reject, Message: "use staging"}, nil
			}),
			wantReason: ReasonStop, wantResult: "use staging", wantKind: "corrected", wantAsked: true, wantReqs: 2,
		},
		{
			name:       "without anyone to ask the call is denied and the model told how to allow it",
			wantReason: ReasonStop, wantResult: "no one can answer permission requests here", wantKind: "denied", wantReqs: 2,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, answerAfterTools(guarded, "done"), harnessOptions{asker: tt.asker, cfg: func(c *config.Config) {
				c.Permission.Rules = permission.Ruleset{{Permission: "guarded", Pattern: "*", Action: permission.Ask}}
			}})
			res, err := h.run(Request{Prompt: "touch prod"})
			if err != nil {
				t.Fatal(err)
			}
			if res.Reason != tt.wantReason {
				t.Errorf("reason %q, want %q", res.Reason, tt.wantReason)
			}
			reqs := h.srv.Requests()
			if len(reqs) != tt.wantReqs {
				t.Fatalf("%d model requests, want %d", len(reqs), tt.wantReqs)
			}
			if tt.wantResult != "" {
				if got := reqs[1].ToolResults()["g1"]; !strings.Contains(got, tt.wantResult) {
					t.Errorf("model was sent %q, want %q in it", got, tt.wantResult)
				}
			}
			asked := h.eventsOf(EventPermissionAsked)
			if tt.wantAsked != (len(asked) == 1) || (tt.wantAsked && (asked[0].Permission.Permission != "guarded" || asked[0].CallID != "g1")) {
				t.Errorf("permission-asked events %+v, want asked=%v for guarded on call g1", asked, tt.wantAsked)
			}
			errs := h.eventsOf(EventToolError)
			if tt.wantKind == "" && len(errs) != 0 || tt.wantKind != "" && (len(errs) != 1 || errs[0].ErrorKind != tt.wantKind) {
				t.Errorf("tool-error events %+v, want kind %q", errs, tt.wantKind)
			}
		})
	}
}

// loopingModel calls echo with the same arguments forever.
func loopingModel(n int, req agenttest.Request) agenttest.Turn {
	if len(req.Tools) == 0 {
		return agenttest.Turn{Text: "Stopping: I kept repeating myself."}
	}
	return agenttest.Turn{ToolCalls: []agenttest.ToolCall{{ID: fmt.Sprintf("loop%d", n), Name: "echo", Arguments: `{"text": "again"}`}}}
}

func TestRunDoomLoop(t *testing.T) {
	t.Parallel()
	t.Run("the third identical call asks doom_loop and a rejection stops the run", func(t *testing.T) {
		t.Parallel()
		var mu sync.Mutex
		var asked []string
		h := newHarness(t, loopingModel, harnessOptions{asker: permission.AskerFunc(func(_ context.Context, req permission.Request) (permission.Reply, error) {
			mu.Lock()
			asked = append(asked, req.Permission+" "+strings.Join(req.Patterns, ","))
			mu.Unlock()
			return permission.Reply{Kind: permission.Reject}, nil
		})})
		res, err := h.run(Request{Prompt: "loop"})
		if err != nil {
			t.Fatal(err)
		}
		if res.Reason != ReasonRejected || res.Steps != 3 {
			t.Errorf("result %+v, want rejected at step 3", res)
		}
		if !slices.Equal(asked, []string{"doom_loop echo"}) {
			t.Errorf("asked %v, want one doom_loop for echo", asked)
		}
		if n := len(h.eventsOf(EventToolResult)); n != 2 {
			t.Errorf("%d calls ran, want the first 2", n)
		}
	})
	t.Run("without anyone to ask, repeated calls are denied until the step limit", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, loopingModel, harnessOptions{})
		res, err := h.run(Request{Prompt: "loop", MaxSteps: 5})
		if err != nil {
			t.Fatal(err)
		}
		if res.Reason != ReasonMaxSteps || res.Steps != 5 || res.Text != "Stopping: I kept repeating myself." {
			t.Errorf("result %+v, want max-steps after 5 with the summary", res)
		}
		errs := h.eventsOf(EventToolError)
		if len(errs) != 2 || errs[0].ErrorKind != "denied" || !strings.Contains(errs[0].Error, "doom_loop") {
			t.Errorf("tool errors %+v, want calls 3 and 4 denied doom_loop", errs)
		}
		reqs := h.srv.Requests()
		last := reqs[len(reqs)-1]
		if len(last.Tools) != 0 || !strings.Contains(last.Messages[len(last.Messages)-1].Text(), "MAXIMUM STEPS REACHED") {
			t.Errorf("last step was sent %d tools and last message %q; want no tools and the max-steps prompt", len(last.Tools), last.Messages[len(last.Messages)-1].Text())
		}
	})
	t.Run("approving doom_loop always lets the loop go on", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, loopingModel, harnessOptions{asker: permission.AskerFunc(func(context.Context, permission.Request) (permission.Reply, error) {
			return permission.Reply{Kind: permission.Always}, nil
		})})
		res, err := h.run(Request{Prompt: "loop", MaxSteps: 6})
		if err != nil {
			t.Fatal(err)
		}
		if res.Reason != ReasonMaxSteps || len(h.eventsOf(EventToolResult)) != 5 || len(h.eventsOf(EventPermissionAsked)) != 1 {
			t.Errorf("result %+v, %d results, %d asks; want 5 calls run and one question", res, len(h.eventsOf(EventToolResult)), len(h.eventsOf(EventPermissionAsked)))
		}
	})
}

func TestRunSendsTransformedSchemas(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		model  string
		strict bool
		check  func(t *testing.T, params map[string]any, strict *bool)
	}{
		{
			name:  "strict mode sends every property required and no extra properties",
			model: testModel, strict: true,
			check: func(t *testing.T, p map[string]any, strict *bool) {
				if strict == nil || !*strict {
					t.Error("function not marked strict")
				}
				if p["additionalProperties"] != false || fmt.Sprint(p["required"]) != "[level note]" {
					t.Errorf("schema %v", p)
				}
			},
		},
		{
			name:  "a Gemini model gets string enums",
			model: "test/gemini-2.5-flash",
			check: func(t *testing.T, p map[string]any, strict *bool) {
				level := p["properties"].(map[string]any)["level"].(map[string]any)
				if level["type"] != "string" || fmt.Sprint(level["enum"]) != "[1 2 3]" {
					t.Errorf("level schema %v, want string enum", level)
				}
				if _, isString := level["enum"].([]any)[0].(string); !isString || strict != nil {
					t.Errorf("enum %v strict %v", level["enum"], strict)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, func(n int, _ agenttest.Request) agenttest.Turn {
				if n == 0 {
					return agenttest.Turn{ToolCalls: []agenttest.ToolCall{{ID: "l1", Name: "level", Arguments: `{"level":2,"note":null}`}}}
				}
				return agenttest.Turn{Text: "set"}
			}, harnessOptions{strict: tt.strict})
			if _, err := h.run(Request{Prompt: "set level", Model: tt.model}); err != nil {
				t.Fatal(err)
			}
			req := h.srv.Requests()[0]
			if req.Model != strings.TrimPrefix(tt.model, "test/") {
				t.Errorf("model sent %q, want the id without the provider", req.Model)
			}
			i := slices.Index(req.ToolNames(), "level")
			if i < 0 {
				t.Fatalf("level not offered: %v", req.ToolNames())
			}
			var params map[string]any
			if err := json.Unmarshal(req.Tools[i].Function.Parameters, &params); err != nil {
				t.Fatal(err)
			}
			tt.check(t, params, req.Tools[i].Function.Strict)
			if tt.strict {
				// The null the strict model sent for the optional note
				// must not reach the tool's own schema.
				if got := h.srv.Requests()[1].ToolResults()["l1"]; got != `level 2 note ""` {
					t.Errorf("tool result %q", got)
				}
			}
		})
	}
}

func TestRunContinuesASessionFromTheStore(t *testing.T) {
	t.Parallel()
	h := newHarness(t, func(n int, req agenttest.Request) agenttest.Turn {
		if n == 0 {
			return agenttest.Turn{ToolCalls: []agenttest.ToolCall{{ID: "e1", Name: "echo", Arguments: `{"text":"remember me"}`}}}
		}
		return agenttest.Turn{Text: fmt.Sprintf("answer %d", n)}
	}, harnessOptions{store: true})
	first, err := h.run(Request{Prompt: "first", SessionID: "ses_keep"})
	if err != nil {
		t.Fatal(err)
	}
	// A second Runner on the same store stands for a second process.
	second := New(Options{Registry: h.reg, Store: h.store, Env: func(string) string { return "" }})
	res, err := second.Run(context.Background(), Request{Prompt: "second", SessionID: first.SessionID, Model: testModel})
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "answer 2" {
		t.Errorf("text %q", res.Text)
	}
	reqs := h.srv.Requests()
	var roles []string
	for _, m := range reqs[2].Messages {
		roles = append(roles, m.Role)
	}
	if want := []string{"system", "user", "assistant", "tool", "assistant", "user"}; !slices.Equal(roles, want) {
		t.Errorf("continued conversation roles %v, want %v", roles, want)
	}
	if got := reqs[2].ToolResults()["e1"]; got != "echo: remember me" {
		t.Errorf("replayed tool result %q", got)
	}
	tr, err := second.Transcript(context.Background(), "ses_keep")
	if err != nil {
		t.Fatal(err)
	}
	st := tr.Tools["e1"]
	if st.Status != StateCompleted || st.Output != "echo: remember me" || st.Title != "echo remember me" || st.Time.End == 0 || st.Metadata["length"] != float64(11) {
		t.Errorf("stored tool state %+v", st)
	}
	if tr.Info.Title != "first" || len(tr.Messages) != 6 {
		t.Errorf("info %+v and %d messages, want title first and 6 messages", tr.Info, len(tr.Messages))
	}
}

func TestRunAnswersCallsInterruptedInAnEarlierProcess(t *testing.T) {
	t.Parallel()
	h := newHarness(t, func(int, agenttest.Request) agenttest.Turn { return agenttest.Turn{Text: "ok"} }, harnessOptions{store: true})
	ctx := context.Background()
	tr := &Transcript{}
	ts := h.runner.transcripts
	for _, m := range []Message{
		{ID: "m1", Role: RoleUser, Text: "go"},
		{ID: "m2", Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "lost", Name: "echo", Arguments: `{"text":"x"}`}}},
	} {
		if err := ts.appendMessage(ctx, "ses_crash", tr, m); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := h.run(Request{Prompt: "again", SessionID: "ses_crash"}); err != nil {
		t.Fatal(err)
	}
	if got := h.srv.Requests()[0].ToolResults()["lost"]; !strings.Contains(got, "interrupted") {
		t.Errorf("the unanswered call was sent as %q", got)
	}
}

func TestRunReportsEndpointErrorsWithARemedy(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		status int
		msg    string
		want   string
	}{
		{"a refused key names the key settings", 401, "Incorrect API key provided", "check the API key"},
		{"an unknown model names the model id", 404, "model not found", "check the model id"},
		{"an overlong conversation says to start a new session", 400, "This model's maximum context length is 8192 tokens", "start a new session"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, func(int, agenttest.Request) agenttest.Turn {
				return agenttest.Turn{Status: tt.status, ErrorMessage: tt.msg}
			}, harnessOptions{})
			_, err := h.run(Request{Prompt: "hi"})
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("error %v, want it to say %q and quote %q", err, tt.want, tt.msg)
			}
			if errs := h.eventsOf(EventError); len(errs) != 1 {
				t.Errorf("%d error events, want 1", len(errs))
			}
		})
	}
}

// TestRunSeesToolsThatArriveDuringTheRun registers a tool while a run goes
// on (as a watched tool folder does): the next step offers it to the model.
func TestRunSeesToolsThatArriveDuringTheRun(t *testing.T) {
	t.Parallel()
	var h *harness
	h = newHarness(t, func(n int, _ agenttest.Request) agenttest.Turn {
		switch n {
		case 0:
			// Between this step and the next, a new tool arrives.
			h.reg.Add(runtime.SourceWasm, runtime.Define("late", "Arrives during the run.", func(context.Context, echoParams, *runtime.Context) (runtime.Result, error) {
				return runtime.Result{Output: "late"}, nil
			}))
			return agenttest.Turn{ToolCalls: []agenttest.ToolCall{{ID: "c1", Name: "echo", Arguments: `{"text":"hi"}`}}}
		case 1:
			return agenttest.Turn{ToolCalls: []agenttest.ToolCall{{ID: "c2", Name: "late", Arguments: `{"text":"x"}`}}}
		default:
			return agenttest.Turn{Text: "done"}
		}
	}, harnessOptions{})
	if _, err := h.run(Request{Prompt: "go"}); err != nil {
		t.Fatal(err)
	}
	reqs := h.srv.Requests()
	if len(reqs) < 2 {
		t.Fatalf("%d requests, want at least 2", len(reqs))
	}
	names := func(r agenttest.Request) []string {
		var out []string
		for _, tool := range r.Tools {
			out = append(out, tool.Function.Name)
		}
		return out
	}
	if slices.Contains(names(reqs[0]), "late") {
		t.Errorf("first request already offered late: %v", names(reqs[0]))
	}
	if !slices.Contains(names(reqs[1]), "late") {
		t.Errorf("second request does not offer the tool that arrived: %v", names(reqs[1]))
	}
	ran := false
	for _, e := range h.eventsOf(EventToolResult) {
		if e.Tool == "late" {
			ran = strings.Contains(e.Output, "late")
		}
	}
	if !ran {
		t.Error("the tool that arrived during the run did not run when the model called it")
	}
}
