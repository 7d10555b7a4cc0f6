package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/toolhost/toolhost/runtime/config"
	"github.com/toolhost/toolhost/runtime/permission"
)

type echoArgs struct {
	Text   string `json:"text" jsonschema:"description=Text to echo"`
	Count  int    `json:"count,omitempty" jsonschema:"minimum=1"`
	Repeat int    `json:"repeat,omitempty"`
}

func echoTool(id string) Tool {
	return Define(id, "Echo text back.", func(ctx context.Context, a echoArgs, tc *Context) (Result, error) {
		n := max(a.Repeat, 1)
		tc.Metadata("echoing", map[string]any{"n": n})
		return Result{Title: "echo", Output: strings.Repeat(a.Text, n)}, nil
	})
}

func newTestRegistry(t *testing.T, cfg *config.Config, opts ...func(*Options)) *Registry {
	t.Helper()
	if cfg == nil {
		cfg = &config.Config{}
	}
	o := Options{Config: cfg, DataDir: t.TempDir(), Directory: t.TempDir()}
	for _, f := range opts {
		f(&o)
	}
	r, err := NewRegistry(o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestCallValidatesArgumentsAndListsEveryError(t *testing.T) {
	t.Parallel()
	r := newTestRegistry(t, nil)
	r.Add(SourceBuiltin, echoTool("echo"))
	_, err := r.Call(context.Background(), Call{Tool: "echo", Args: json.RawMessage(`{"count": 0, "repeat": "x"}`)})
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("err = %v, want *ValidationError", err)
	}
	msg := err.Error()
	for _, want := range []string{
		"The echo tool was called with invalid arguments: ",
		"missing property 'text'",
		"/count: ",
		"/repeat: ",
		".\nPlease rewrite the input so it satisfies the expected schema.",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
	if len(ve.Problems) != 3 {
		t.Errorf("problems = %q, want 3", ve.Problems)
	}
}

func TestCallCoercesNumericStringsForNumberParameters(t *testing.T) {
	t.Parallel()
	r := newTestRegistry(t, nil)
	r.Add(SourceBuiltin, echoTool("echo"))
	res, err := r.Call(context.Background(), Call{Tool: "echo", Args: json.RawMessage(`{"text":"ab","repeat":"3"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Output != "ababab" {
		t.Errorf("output = %q", res.Output)
	}
}

func TestCallRoutesUnknownToolsAndBrokenJSONToInvalid(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		call Call
		want []string
	}{
		{"an unknown tool lists the tools that exist", Call{Tool: "ech", Args: json.RawMessage(`{}`)}, []string{"unavailable tool 'ech'", "Available tools: echo"}},
		{"arguments that are not JSON are explained", Call{Tool: "echo", Args: json.RawMessage(`{"text": `)}, []string{"not valid JSON", `{"text": `}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := newTestRegistry(t, nil)
			r.Add(SourceBuiltin, echoTool("echo"))
			var got invalidArgs
			r.Add(SourceBuiltin, Declare(Define("invalid", "x", func(_ context.Context, a invalidArgs, _ *Context) (Result, error) {
				got = a
				return Result{Title: "Invalid Tool", Output: "The arguments provided to the tool are invalid: " + a.Error}, nil
			}), Traits{Fallback: true}))
			res, err := r.Call(context.Background(), tc.call)
			if err != nil {
				t.Fatal(err)
			}
			if got.Tool != tc.call.Tool {
				t.Errorf("invalid tool got tool %q", got.Tool)
			}
			for _, w := range tc.want {
				if !strings.Contains(res.Output, w) {
					t.Errorf("output lacks %q: %s", w, res.Output)
				}
			}
		})
	}
}

type invalidArgs struct {
	Tool  string `json:"tool"`
	Error string `json:"error"`
}

func TestHooksChangeArgumentsRefuseCallsAndChangeResults(t *testing.T) {
	t.Parallel()
	r := newTestRegistry(t, nil)
	r.Add(SourceBuiltin, echoTool("echo"))
	var afterCalls atomic.Int32
	r.AddHook(HookFuncs{
		Before: func(_ context.Context, in *BeforeExecute) error {
			if strings.Contains(string(in.Args), "forbidden") {
				return errors.New("no forbidden words")
			}
			in.Args = json.RawMessage(strings.Replace(string(in.Args), "cat", "dog", 1))
			return nil
		},
		After: func(_ context.Context, in *AfterExecute) error {
			afterCalls.Add(1)
			if in.Result != nil {
				in.Result.Output += "!"
			}
			return nil
		},
	})
	res, err := r.Call(context.Background(), Call{Tool: "echo", Args: json.RawMessage(`{"text":"cat"}`)})
	if err != nil || res.Output != "dog!" {
		t.Fatalf("res = %q, %v; want dog!", res.Output, err)
	}
	_, err = r.Call(context.Background(), Call{Tool: "echo", Args: json.RawMessage(`{"text":"forbidden"}`)})
	var he *HookError
	if !errors.As(err, &he) || !strings.Contains(err.Error(), "no forbidden words") {
		t.Fatalf("err = %v, want HookError", err)
	}
	if afterCalls.Load() != 1 {
		t.Errorf("after hook ran %d times, want 1", afterCalls.Load())
	}
}

func TestCallTruncatesLongOutputUnlessTheToolDidItself(t *testing.T) {
	t.Parallel()
	cfg := &config.Config{ToolOutput: config.ToolOutput{MaxLines: 5}}
	r := newTestRegistry(t, cfg)
	r.Add(SourceBuiltin, echoTool("echo"))
	r.Add(SourceBuiltin, Define("self", "x", func(context.Context, struct{}, *Context) (Result, error) {
		return Result{Output: numbered(50), Metadata: map[string]any{"truncated": true}}, nil
	}))
	res, err := r.Call(context.Background(), Call{Tool: "echo", Args: json.RawMessage(`{"text":"a\nb\nc\nd\ne\nf\ng\n"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Metadata["truncated"] != true || res.Metadata["outputPath"] == nil || !strings.Contains(res.Output, "...3 lines truncated...") {
		t.Errorf("not truncated as expected: %v\n%s", res.Metadata, res.Output)
	}
	res, _ = r.Call(context.Background(), Call{Tool: "self", Args: json.RawMessage(`{}`)})
	if res.Output != numbered(50) {
		t.Error("output of a tool that truncates itself was changed")
	}
}

func TestCallRecoversFromAPanickingTool(t *testing.T) {
	t.Parallel()
	r := newTestRegistry(t, nil)
	r.Add(SourceBuiltin, Define("boom", "x", func(context.Context, struct{}, *Context) (Result, error) { panic("kaboom") }))
	r.Add(SourceBuiltin, echoTool("echo"))
	_, err := r.Call(context.Background(), Call{Tool: "boom"})
	var pe *PanicError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "kaboom") {
		t.Fatalf("err = %v", err)
	}
	if _, err := r.Call(context.Background(), Call{Tool: "echo", Args: json.RawMessage(`{"text":"ok"}`)}); err != nil {
		t.Fatalf("registry unusable after a panic: %v", err)
	}
}

func TestCallDeliversLiveMetadataAndPermissionDecisions(t *testing.T) {
	t.Parallel()
	var cfgPerm permission.Config
	if err := json.Unmarshal([]byte(`{"net": {"*": "ask", "good.example": "allow", "evil.example": "deny"}}`), &cfgPerm); err != nil {
		t.Fatal(err)
	}
	asked := 0
	r := newTestRegistry(t, &config.Config{Permission: cfgPerm}, func(o *Options) {
		o.Asker = permission.AskerFunc(func(ctx context.Context, req permission.Request) (permission.Reply, error) {
			asked++
			return permission.Reply{Kind: permission.Reject, Message: "use good.example"}, nil
		})
	})
	r.Add(SourceBuiltin, Define("fetch", "x", func(ctx context.Context, a struct {
		Host string `json:"host"`
	}, tc *Context) (Result, error) {
		if err := tc.Ask(ctx, permission.Request{Permission: "net", Patterns: []string{a.Host}}); err != nil {
			return Result{}, err
		}
		return Result{Output: "fetched " + a.Host}, nil
	}))
	tests := []struct {
		host, kind string
		asked      int
	}{
		{"good.example", "", 0},
		{"evil.example", "denied", 0},
		{"other.example", "corrected", 1},
	}
	for _, tc := range tests {
		asked = 0
		_, err := r.Call(context.Background(), Call{Tool: "fetch", Args: json.RawMessage(`{"host":"` + tc.host + `"}`)})
		if got := permission.Kind(err); got != permission.Outcome(tc.kind) {
			t.Errorf("%s: kind %q (err %v), want %q", tc.host, got, err, tc.kind)
		}
		if asked != tc.asked {
			t.Errorf("%s: asked %d times, want %d", tc.host, asked, tc.asked)
		}
	}
	var updates []string
	r.Add(SourceBuiltin, echoTool("echo"))
	_, err := r.Call(context.Background(), Call{Tool: "echo", Args: json.RawMessage(`{"text":"x"}`), OnMetadata: func(title string, _ map[string]any) {
		updates = append(updates, title)
	}})
	if err != nil || !slices.Equal(updates, []string{"echoing"}) {
		t.Errorf("metadata updates %v, err %v", updates, err)
	}
}

type fakeQuestioner struct{}

func (fakeQuestioner) AskQuestions(context.Context, []Question) ([][]string, error) { return nil, nil }

func TestCallRulesApplyAfterTheAgentsAndReachNestedCalls(t *testing.T) {
	t.Parallel()
	r := newTestRegistry(t, nil)
	r.Add(SourceBuiltin, Define("note", "x", func(ctx context.Context, _ struct{}, tc *Context) (Result, error) {
		if err := tc.Ask(ctx, permission.Request{Permission: "note", Patterns: []string{"*"}}); err != nil {
			return Result{}, err
		}
		return Result{Output: "noted"}, nil
	}))
	// A tool that calls another, passing its rules on as batch does.
	r.Add(SourceBuiltin, Define("outer", "x", func(ctx context.Context, _ struct{}, tc *Context) (Result, error) {
		return tc.Caller.Call(ctx, Call{Tool: "note", SessionID: tc.SessionID, Agent: tc.Agent, Rules: tc.Rules})
	}))
	deny := permission.Ruleset{{Permission: "note", Pattern: "*", Action: permission.Deny, Source: "subagent session"}}
	for _, tool := range []string{"note", "outer"} {
		if _, err := r.Call(context.Background(), Call{Tool: tool}); err != nil {
			t.Fatalf("%s without extra rules: %v", tool, err)
		}
		_, err := r.Call(context.Background(), Call{Tool: tool, Rules: deny})
		if permission.Kind(err) != "denied" || !strings.Contains(err.Error(), "subagent session") {
			t.Errorf("%s with a deny rule: err = %v, want a denial quoting the rule", tool, err)
		}
	}
}
