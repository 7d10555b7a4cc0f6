package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/runtime/permission"
)

// Each step of the chain is tested alone: a fake rest-of-chain (next)
// records whether it ran and what it saw.

// testInvocation is a call of tool "t" with args, by the build agent, whose
// tool has the given schema and traits.
func testInvocation(t *testing.T, args string, schema string, tr Traits) *invocation {
	t.Helper()
	if schema == "" {
		schema = `{"type":"object","properties":{"n":{"type":"integer"}}}`
	}
	cs, err := CompileSchema("t", json.RawMessage(schema))
	if err != nil {
		t.Fatal(err)
	}
	return &invocation{
		call:  Call{Tool: "t", Args: json.RawMessage(args), SessionID: "ses", CallID: "c1"},
		agent: &Agent{Name: "build"},
		tool:  &prepared{def: &Definition{Parameters: json.RawMessage(schema)}, schema: cs, source: SourceWasm, traits: tr},
		args:  json.RawMessage(args),
		tc:    &Context{Tool: "t"},
		log:   slog.New(slog.DiscardHandler),
	}
}

// recorder is a next handler that records the arguments it saw and returns
// res, err.
type recorder struct {
	ran  bool
	args string
	res  Result
	err  error
}

func (rec *recorder) next(_ context.Context, in *invocation) (Result, error) {
	rec.ran, rec.args = true, string(in.args)
	return rec.res, rec.err
}

func TestChainRunsStepsInTheOrderGivenAndUnlessLeavesOneOut(t *testing.T) {
	t.Parallel()
	var order []string
	mark := func(name string) step {
		return func(next handler) handler {
			return func(ctx context.Context, in *invocation) (Result, error) {
				order = append(order, name)
				return next(ctx, in)
			}
		}
	}
	end := func(context.Context, *invocation) (Result, error) { order = append(order, "end"); return Result{}, nil }
	tests := []struct {
		name string
		skip bool
		want []string
	}{
		{"every step runs first to last, then the end", false, []string{"a", "b", "c", "end"}},
		{"a skipped step does not run and the rest still do", true, []string{"a", "c", "end"}},
	}
	for _, tt := range tests {
		order = nil
		_, _ = chain(end, mark("a"), unless(tt.skip, mark("b")), mark("c"))(context.Background(), &invocation{})
		if !slices.Equal(order, tt.want) {
			t.Errorf("%s: order %v, want %v", tt.name, order, tt.want)
		}
	}
}

func TestLogCallLogsEveryOutcomeWithItsDuration(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		err  error
		want []string
	}{
		{"a failure is logged at info with its error", errors.New("boom"), []string{"level=INFO", "tool call failed", "err=boom", "dur=1s"}},
		{"a success is logged at debug with the output size", nil, []string{"level=DEBUG", "tool call done", "bytes=5", "dur=1s"}},
	}
	for _, tt := range tests {
		var buf bytes.Buffer
		in := testInvocation(t, `{}`, "", Traits{})
		in.log = slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
		clock := time.Unix(0, 0)
		now := func() time.Time { clock = clock.Add(time.Second); return clock }
		rec := &recorder{res: Result{Output: "hello"}, err: tt.err}
		_, err := logCall(now)(rec.next)(context.Background(), in)
		if err != tt.err {
			t.Errorf("%s: err %v, want the step's own", tt.name, err)
		}
		for _, w := range tt.want {
			if !strings.Contains(buf.String(), w) {
				t.Errorf("%s: log %q lacks %q", tt.name, buf.String(), w)
			}
		}
	}
}

func TestOfferRefusesWhatIsNotOfferedBeforeAnythingElse(t *testing.T) {
	t.Parallel()
	refusal := &UnavailableError{Tool: "t", Reason: "no"}
	tests := []struct {
		name    string
		answer  *UnavailableError
		wantRun bool
	}{
		{"an offered tool goes on", nil, true},
		{"a tool not offered is refused with the gate's error", refusal, false},
	}
	for _, tt := range tests {
		in := testInvocation(t, `{}`, "", Traits{})
		in.call.Model, in.call.Rules = "m", permission.Ruleset{{Permission: "x", Pattern: "*", Action: permission.Deny}}
		var asked []any
		unavailable := func(id, model string, agent *Agent, rules permission.Ruleset, listing bool) *UnavailableError {
			asked = append(asked, id, model, agent.Name, len(rules), listing)
			return tt.answer
		}
		rec := &recorder{}
		_, err := offer(unavailable)(rec.next)(context.Background(), in)
		if rec.ran != tt.wantRun || (tt.answer != nil && err != tt.answer) {
			t.Errorf("%s: ran %v, err %v", tt.name, rec.ran, err)
		}
		if want := []any{"t", "m", "build", 1, false}; !slices.Equal(asked, want) {
			t.Errorf("%s: asked about %v, want %v (a call, not a listing)", tt.name, asked, want)
		}
	}
}

func TestPrepareToolHandsTheInitialisedToolOnOrStops(t *testing.T) {
	t.Parallel()
	want := &prepared{def: &Definition{Description: "d"}}
	tests := []struct {
		name    string
		p       *prepared
		err     error
		wantRun bool
	}{
		{"an initialised tool is handed on", want, nil, true},
		{"a tool that fails to initialise stops the call with its error", nil, errors.New("init t: broken"), false},
	}
	for _, tt := range tests {
		in := &invocation{call: Call{Tool: "t", Model: "m"}, agent: &Agent{Name: "plan"}}
		var seen *prepared
		next := func(_ context.Context, in *invocation) (Result, error) { seen = in.tool; return Result{}, nil }
		_, err := prepareTool(func(_ context.Context, id string, a *Agent, model string) (*prepared, error) {
			if id != "t" || a.Name != "plan" || model != "m" {
				t.Errorf("prepare(%q, %q, %q)", id, a.Name, model)
			}
			return tt.p, tt.err
		})(next)(context.Background(), in)
		if (seen != nil) != tt.wantRun || err != tt.err || (tt.wantRun && seen != want) {
			t.Errorf("%s: handed on %v, err %v", tt.name, seen, err)
		}
	}
}

func TestAskOwnPermissionAsksWhatTheToolDeclares(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		traits    Traits
		args      string
		rules     string
		wantRun   bool
		wantKind  permission.Outcome
		wantPerm  string
		wantPatts []string
	}{
		{"a tool that checks its own is not asked about", Traits{ChecksOwnPermission: true}, `{}`, `{"*": "deny"}`, true, "", "", nil},
		{"an undeclared tool is asked under its id for star", Traits{}, `{}`, `{"t": "deny"}`, false, "denied", "t", []string{"*"}},
		{"a declared permission is asked instead of the id", Traits{Permission: "edit"}, `{}`, `{"t": "deny", "edit": "allow"}`, true, "", "edit", []string{"*"}},
		{"a rule for the id does not reach a tool declaring another permission", Traits{Permission: "edit"}, `{}`, `{"edit": "deny", "t": "allow"}`, false, "denied", "edit", []string{"*"}},
		{"declared patterns are derived from the arguments", Traits{Patterns: func(a json.RawMessage) []string {
			var v struct{ Host string }
			_ = json.Unmarshal(a, &v)
			return []string{v.Host}
		}}, `{"host":"evil.example"}`, `{"t": {"*": "allow", "evil.example": "deny"}}`, false, "denied", "t", []string{"evil.example"}},
		{"derived patterns a rule allows run", Traits{Patterns: func(json.RawMessage) []string { return []string{"good"} }}, `{}`, `{"t": {"*": "deny", "good": "allow"}}`, true, "", "t", []string{"good"}},
		{"no derived pattern falls back to star", Traits{Patterns: func(json.RawMessage) []string { return nil }}, `{}`, `{"t": {"*": "deny", "": "allow"}}`, false, "denied", "t", []string{"*"}},
		{"a derivation that panics on hostile arguments falls back to star", Traits{Patterns: func(json.RawMessage) []string { panic("bad input") }}, `{"x":`, `{"t": {"*": "deny"}}`, false, "denied", "t", []string{"*"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var cfg permission.Config
			if err := json.Unmarshal([]byte(tt.rules), &cfg); err != nil {
				t.Fatal(err)
			}
			rules := cfg.Rules
			var got []permission.Request
			perms := permission.NewService(nil, permission.AskerFunc(func(_ context.Context, req permission.Request) (permission.Reply, error) {
				got = append(got, req)
				return permission.Reply{Kind: permission.Reject}, nil
			}), nil)
			in := testInvocation(t, tt.args, "", tt.traits)
			in.rules = rules
			rec := &recorder{}
			_, err := askOwnPermission(perms)(rec.next)(context.Background(), in)
			if rec.ran != tt.wantRun || permission.Kind(err) != tt.wantKind {
				t.Errorf("ran %v, err %v (kind %q); want ran %v, kind %q", rec.ran, err, permission.Kind(err), tt.wantRun, tt.wantKind)
			}
			var de *permission.DeniedError
			if errors.As(err, &de) && (de.Permission != tt.wantPerm || !slices.Contains(tt.wantPatts, de.Pattern)) {
				t.Errorf("denied %s %q, want %s %v", de.Permission, de.Pattern, tt.wantPerm, tt.wantPatts)
			}
			if len(got) > 0 {
				t.Errorf("a person was asked %+v; every case is decided by a rule", got)
			}
		})
	}
}

// refuseWords is a before hook refusing arguments that contain word.
func refuseWords(word string) Hook {
	return HookFuncs{Before: func(_ context.Context, in *BeforeExecute) error {
		if strings.Contains(string(in.Args), word) {
			return errors.New("no " + word)
		}
		return nil
	}}
}

// replaceArgs is a before hook replacing old by new in the arguments.
func replaceArgs(old, new string) Hook {
	return HookFuncs{Before: func(_ context.Context, in *BeforeExecute) error {
		in.Args = json.RawMessage(strings.ReplaceAll(string(in.Args), old, new))
		return nil
	}}
}

func TestHooksBeforeChainChangesAndStopAtTheFirstRefusal(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		hooks    []Hook
		args     string
		wantArgs string // what the rest of the chain saw; "" when it did not run
		wantErr  string
	}{
		{"no hooks pass the arguments unchanged", nil, `{"a":"cat"}`, `{"a":"cat"}`, ""},
		{"each hook sees the one before's change", []Hook{replaceArgs("cat", "dog"), replaceArgs("dog", "cow")}, `{"a":"cat"}`, `{"a":"cow"}`, ""},
		{"a refusal stops the call with a HookError", []Hook{refuseWords("cat")}, `{"a":"cat"}`, "", "call to t refused by hook: no cat"},
		{"a later hook refuses what an earlier one wrote", []Hook{replaceArgs("cat", "dog"), refuseWords("dog")}, `{"a":"cat"}`, "", "no dog"},
		{"a hook with no before function passes", []Hook{HookFuncs{}}, `{}`, `{}`, ""},
	}
	for _, tt := range tests {
		rec := &recorder{}
		_, err := hooksBefore(tt.hooks)(rec.next)(context.Background(), testInvocation(t, tt.args, "", Traits{}))
		var he *HookError
		if tt.wantErr != "" && (!errors.As(err, &he) || !strings.Contains(err.Error(), tt.wantErr)) {
			t.Errorf("%s: err %v, want a HookError with %q", tt.name, err, tt.wantErr)
		}
		if tt.wantErr == "" && err != nil {
			t.Errorf("%s: err %v", tt.name, err)
		}
		if rec.ran != (tt.wantArgs != "") || rec.args != tt.wantArgs {
			t.Errorf("%s: next ran %v with %q, want %q", tt.name, rec.ran, rec.args, tt.wantArgs)
		}
	}
}

func TestValidateArgsCoercesOrRefuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		args      string
		formatter bool
		wantArgs  string
		wantErr   string
	}{
		{"valid arguments pass unchanged", `{"n":1}`, false, `{"n":1}`, ""},
		{"empty arguments are an empty object", ``, false, `{}`, ""},
		{"a quoted number is coerced", `{"n":"7"}`, false, `{"n":7}`, ""},
		{"a wrong type is refused with its pointer", `{"n":"seven"}`, false, "", "/n: "},
		{"a tool's formatter words the refusal", `{"n":true}`, true, "", "formatted: 1 problem"},
		{"not an object is refused", `[1]`, false, "", "invalid arguments"},
	}
	for _, tt := range tests {
		in := testInvocation(t, tt.args, "", Traits{})
		if tt.formatter {
			in.tool.def.FormatValidationError = func(ve *ValidationError) string {
				return "formatted: " + strings.Repeat("1 problem", len(ve.Problems))
			}
		}
		rec := &recorder{}
		_, err := validateArgs(rec.next)(context.Background(), in)
		var ve *ValidationError
		if tt.wantErr != "" && (!errors.As(err, &ve) || !strings.Contains(err.Error(), tt.wantErr)) {
			t.Errorf("%s: err %v, want a ValidationError with %q", tt.name, err, tt.wantErr)
		}
		if rec.ran != (tt.wantArgs != "") || rec.args != tt.wantArgs {
			t.Errorf("%s: next ran %v with %q, want %q", tt.name, rec.ran, rec.args, tt.wantArgs)
		}
	}
}

func TestHooksAfterSeeTheFinalResultAndCannotLoseIt(t *testing.T) {
	t.Parallel()
	exclaim := HookFuncs{After: func(_ context.Context, in *AfterExecute) error { in.Result.Output += "!"; return nil }}
	failing := HookFuncs{After: func(context.Context, *AfterExecute) error { return errors.New("hook broke") }}
	var sawErr error
	watch := HookFuncs{After: func(_ context.Context, in *AfterExecute) error { sawErr = in.Err; return nil }}
	toolErr := errors.New("tool failed")
	tests := []struct {
		name    string
		hooks   []Hook
		res     Result
		err     error
		wantOut string
	}{
		{"hooks change the result in order", []Hook{exclaim, exclaim}, Result{Output: "hi"}, nil, "hi!!"},
		{"a failing hook keeps the result", []Hook{failing, exclaim}, Result{Output: "hi"}, nil, "hi!"},
		{"hooks see the tool's error, which is kept", []Hook{watch}, Result{}, toolErr, ""},
	}
	for _, tt := range tests {
		sawErr = nil
		rec := &recorder{res: tt.res, err: tt.err}
		res, err := hooksAfter(tt.hooks)(rec.next)(context.Background(), testInvocation(t, `{}`, "", Traits{}))
		if res.Output != tt.wantOut || err != tt.err {
			t.Errorf("%s: %q, %v; want %q, %v", tt.name, res.Output, err, tt.wantOut, tt.err)
		}
		if tt.err != nil && sawErr != tt.err {
			t.Errorf("%s: the hook saw err %v", tt.name, sawErr)
		}
	}
}

func TestTruncateOutputBoundsOnlySuccessfulResultsThatDidNotTruncateThemselves(t *testing.T) {
	t.Parallel()
	long := numbered(10)
	tests := []struct {
		name          string
		res           Result
		err           error
		tail          bool
		wantTruncated any
		wantPrefix    string
	}{
		{"a short output is marked untruncated", Result{Output: "ok"}, nil, false, false, "ok"},
		{"a long output keeps its head", Result{Output: long}, nil, false, true, "line 1\n"},
		{"a tool asking for the tail gets it", Result{Output: long}, nil, true, true, "...7 lines truncated"},
		{"a tool that truncated itself is left alone", Result{Output: long, Metadata: map[string]any{"truncated": true}}, nil, false, true, long},
		{"a failed call is left alone", Result{Output: long}, errors.New("x"), false, nil, long},
	}
	for _, tt := range tests {
		in := testInvocation(t, `{}`, "", Traits{})
		in.tool.def.TruncateTail = tt.tail
		rec := &recorder{res: tt.res, err: tt.err}
		res, _ := truncateOutput(&Truncation{MaxLines: 3, Dir: t.TempDir()}, Hint{})(rec.next)(context.Background(), in)
		if res.Metadata["truncated"] != tt.wantTruncated || !strings.HasPrefix(res.Output, tt.wantPrefix) {
			t.Errorf("%s: truncated %v, output %q", tt.name, res.Metadata["truncated"], res.Output)
		}
	}
}

func TestRecoverPanicTurnsACrashIntoAnErrorAndPassesTheRest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		next    handler
		wantErr string
		wantOut string
	}{
		{"a panic becomes a PanicError naming its value", func(context.Context, *invocation) (Result, error) { panic("kaboom") }, "tool t crashed: kaboom", ""},
		{"a nil-map write is recovered too", func(context.Context, *invocation) (Result, error) {
			var m map[string]int
			m["x"] = 1
			return Result{}, nil
		}, "assignment to entry in nil map", ""},
		{"a normal return passes unchanged", func(context.Context, *invocation) (Result, error) { return Result{Output: "fine"}, nil }, "", "fine"},
	}
	for _, tt := range tests {
		res, err := recoverPanic(tt.next)(context.Background(), testInvocation(t, `{}`, "", Traits{}))
		var pe *PanicError
		if tt.wantErr != "" && (!errors.As(err, &pe) || !strings.Contains(err.Error(), tt.wantErr)) {
			t.Errorf("%s: err %v", tt.name, err)
		}
		if res.Output != tt.wantOut {
			t.Errorf("%s: output %q", tt.name, res.Output)
		}
	}
}

func TestExecuteRunsTheToolWithTheStepsArgumentsAndFillsEmptyFields(t *testing.T) {
	t.Parallel()
	in := testInvocation(t, `{"n":1}`, "", Traits{})
	in.args = json.RawMessage(`{"n":2}`)
	in.tool.def.Execute = func(_ context.Context, args json.RawMessage, tc *Context) (Result, error) {
		return Result{Output: string(args) + " " + tc.Tool}, errors.New("and failed")
	}
	res, err := execute(context.Background(), in)
	if res.Output != `{"n":2} t` || err == nil || res.Metadata == nil || res.Attachments == nil {
		t.Errorf("res %+v, err %v; want the steps' arguments, the error, and empty metadata and attachments", res, err)
	}
}
