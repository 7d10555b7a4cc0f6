package hostfns

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/permission"
)

type weatherArgs struct {
	City string `json:"city"`
}

type forecast struct {
	City string `json:"city"`
	Sky  string `json:"sky"`
}

// weather is the test's embedder function; runs counts the times its Go
// code ran, so a test can tell a refusal from a failure.
func weather(t *testing.T, runs *int) Def {
	t.Helper()
	var mu sync.Mutex
	d, err := Define(Func[weatherArgs, forecast]{
		Name:       "weather",
		Permission: "weather",
		Patterns:   func(a weatherArgs) []string { return []string{a.City} },
		Run: func(_ context.Context, c Caller, a weatherArgs) (forecast, error) {
			mu.Lock()
			*runs++
			mu.Unlock()
			switch a.City {
			case "boom":
				panic("the embedder's bug")
			case "nowhere":
				return forecast{}, errors.New("no such city")
			}
			return forecast{City: a.City, Sky: "clear over " + a.City + " for " + c.Tool}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestDefineRefusesWhatNoGuestShouldReach(t *testing.T) {
	t.Parallel()
	run := func(context.Context, Caller, weatherArgs) (forecast, error) { return forecast{}, nil }
	tests := []struct {
		name string
		f    Func[weatherArgs, forecast]
		want string
	}{
		{"a name that is a built-in host function", Func[weatherArgs, forecast]{Name: "ask", Permission: "p", Run: run}, "toolhost's own"},
		{"the name of the call function itself", Func[weatherArgs, forecast]{Name: "call", Permission: "p", Run: run}, "toolhost's own"},
		{"a name a script tool's op has", Func[weatherArgs, forecast]{Name: "fetch", Permission: "p", Run: run}, "toolhost's own"},
		{"a name of the Extism kernel's", Func[weatherArgs, forecast]{Name: "http_request", Permission: "p", Run: run}, "toolhost's own"},
		{"an empty name", Func[weatherArgs, forecast]{Permission: "p", Run: run}, "lowercase letter"},
		{"a name with a dot", Func[weatherArgs, forecast]{Name: "fs.read", Permission: "p", Run: run}, "lowercase letter"},
		{"a name in capitals", Func[weatherArgs, forecast]{Name: "Weather", Permission: "p", Run: run}, "lowercase letter"},
		{"a function no permission governs", Func[weatherArgs, forecast]{Name: "weather", Permission: " ", Run: run}, "needs a Permission"},
		{"a function with no code", Func[weatherArgs, forecast]{Name: "weather", Permission: "p"}, "Run is nil"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if _, err := Define(tt.f); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Define = %v, want an error saying %q", err, tt.want)
			}
		})
	}
}

func TestEveryBuiltinNameIsReserved(t *testing.T) {
	t.Parallel()
	reserved := strings.Join(Reserved(), " ")
	for _, f := range Functions() {
		if f.Namespace == Namespace && !strings.Contains(" "+reserved+" ", " "+f.Name+" ") {
			t.Errorf("%s is a host function guests import but not reserved: an embedder could shadow it", f.Name)
		}
	}
}

func TestNewSetRefusesTwoFunctionsOfOneName(t *testing.T) {
	t.Parallel()
	var n int
	if _, err := NewSet(weather(t, &n), weather(t, &n)); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("NewSet = %v, want a duplicate refused", err)
	}
	if _, err := NewSet(Def{}); err == nil || !strings.Contains(err.Error(), "Define") {
		t.Errorf("NewSet(Def{}) = %v, want a Def not made by Define refused", err)
	}
}

// callOnce calls fn through the shared call function as a script tool
// would, with the call's permission decided by rules and asker, and
// returns the reply.
func callOnce(t *testing.T, set *Set, tc *runtime.Context, req string) CallReply {
	t.Helper()
	c := &Call{Tool: "forecaster", Context: tc, Funcs: set, Scope: permission.Scope{Tool: "forecaster", Source: "wasm", File: "/t/forecaster.wasm"}}
	v, ok, err := Script(context.Background(), c, NameCall, json.RawMessage(req))
	if !ok || err != nil {
		t.Fatalf("Script(call) = %v, %v, %v", v, ok, err)
	}
	return v.(CallReply)
}

// rulesContext is a call context whose asks go through a real permission
// engine with rules, and asker answering when a rule says ask.
func rulesContext(rules permission.Ruleset, asker permission.AskerFunc) *runtime.Context {
	svc := permission.NewService(nil, asker, nil)
	return runtime.NewContext(runtime.Context{SessionID: "s1", CallID: "c1", Tool: "forecaster"}, nil, func(ctx context.Context, req permission.Request) error {
		return svc.Ask(ctx, rules, req)
	})
}

func TestCallChecksTheFunctionsPermissionBeforeItRuns(t *testing.T) {
	t.Parallel()
	allowEarth := permission.Ruleset{
		{Permission: "weather", Pattern: "*", Action: permission.Ask},
		{Permission: "weather", Pattern: "paris", Action: permission.Allow},
		{Permission: "weather", Pattern: "mars", Action: permission.Deny},
	}
	answer := func(k permission.ReplyKind) permission.AskerFunc {
		return func(context.Context, permission.Request) (permission.Reply, error) {
			return permission.Reply{Kind: k}, nil
		}
	}
	tests := []struct {
		name     string
		req      string
		asker    permission.AskerFunc
		wantKind string
		wantText string
		wantRuns int
	}{
		{"an allowed call runs and returns its result", `{"fn":"weather","args":{"city":"paris"}}`, nil, "", "clear over paris for forecaster", 1},
		{"a deny rule refuses it before it runs", `{"fn":"weather","args":{"city":"mars"}}`, answer(permission.Once), "denied", "weather", 0},
		{"a person rejecting the ask refuses it", `{"fn":"weather","args":{"city":"oslo"}}`, answer(permission.Reject), "rejected", "weather", 0},
		{"a person allowing the ask lets it run", `{"fn":"weather","args":{"city":"oslo"}}`, answer(permission.Once), "", "clear over oslo", 1},
		{"no asker refuses what a rule leaves to a person", `{"fn":"weather","args":{"city":"oslo"}}`, nil, "denied", "weather", 0},
		{"an undefined function is named, with the ones there are", `{"fn":"rain","args":{}}`, answer(permission.Once), KindUnknown, `no such function (it has: weather)`, 0},
		{"arguments that are not JSON do not run it", `{"fn":"weather","args":{"city":}}`, answer(permission.Once), KindInvalid, "not", 0},
		{"arguments with an unknown field do not run it", `{"fn":"weather","args":{"city":"paris","sudo":true}}`, answer(permission.Once), KindInvalid, `unknown field "sudo"`, 0},
		{"arguments of the wrong type do not run it", `{"fn":"weather","args":{"city":7}}`, answer(permission.Once), KindInvalid, "string", 0},
		{"a request that is not JSON is refused", `weather(paris)`, answer(permission.Once), KindInvalid, `{"fn"`, 0},
		{"the function's error reaches the guest as a message", `{"fn":"weather","args":{"city":"nowhere"}}`, answer(permission.Once), KindFailed, "weather: no such city", 1},
		{"a panicking function fails the call, not the host", `{"fn":"weather","args":{"city":"boom"}}`, answer(permission.Once), KindFailed, "the embedder's bug", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var runs int
			set, err := NewSet(weather(t, &runs))
			if err != nil {
				t.Fatal(err)
			}
			var asker permission.AskerFunc
			if tt.asker != nil {
				asker = tt.asker
			}
			var tc *runtime.Context
			if asker != nil {
				tc = rulesContext(allowEarth, asker)
			} else {
				svc := permission.NewService(nil, nil, nil)
				tc = runtime.NewContext(runtime.Context{SessionID: "s1"}, nil, func(ctx context.Context, req permission.Request) error { return svc.Ask(ctx, allowEarth, req) })
			}
			r := callOnce(t, set, tc, tt.req)
			text := r.Error
			if r.Kind == "" {
				text = string(r.Value)
			}
			if r.Kind != tt.wantKind || !strings.Contains(text, tt.wantText) {
				t.Errorf("reply = %+v, want kind %q with %q", r, tt.wantKind, tt.wantText)
			}
			if runs != tt.wantRuns {
				t.Errorf("the function ran %d times, want %d", runs, tt.wantRuns)
			}
		})
	}
}

func TestCallAsksEveryTimeUnderTheCallingToolsScope(t *testing.T) {
	t.Parallel()
	var runs int
	set, err := NewSet(weather(t, &runs))
	if err != nil {
		t.Fatal(err)
	}
	var asked []permission.Request
	answers := []permission.ReplyKind{permission.Once, permission.Reject}
	tc := rulesContext(nil, func(_ context.Context, req permission.Request) (permission.Reply, error) {
		asked = append(asked, req)
		return permission.Reply{Kind: answers[len(asked)-1]}, nil
	})
	first := callOnce(t, set, tc, `{"fn":"weather","args":{"city":"oslo"}}`)
	second := callOnce(t, set, tc, `{"fn":"weather","args":{"city":"oslo"}}`)
	if first.Kind != "" || second.Kind != "rejected" || runs != 1 {
		t.Fatalf("replies %+v then %+v after %d runs: a once-approval must not carry over to the next call", first, second, runs)
	}
	if len(asked) != 2 {
		t.Fatalf("asked %d times, want once per call", len(asked))
	}
	want := permission.Scope{Tool: "forecaster", Source: "wasm", File: "/t/forecaster.wasm"}
	if r := asked[0]; r.Permission != "weather" || strings.Join(r.Patterns, ",") != "oslo" || r.Scope != want || r.SessionID != "s1" {
		t.Errorf("asked %+v, want permission weather for oslo under %v", r, want)
	}
}

func TestCallOutsideExecuteIsUnavailable(t *testing.T) {
	t.Parallel()
	var runs int
	set, _ := NewSet(weather(t, &runs))
	if r := callOnce(t, set, nil, `{"fn":"weather","args":{"city":"paris"}}`); r.Kind != KindUnavailable || runs != 0 {
		t.Errorf("reply %+v after %d runs, want unavailable", r, runs)
	}
}

func TestAHostWithoutFunctionsSaysSo(t *testing.T) {
	t.Parallel()
	r := callOnce(t, nil, rulesContext(nil, nil), `{"fn":"weather"}`)
	if r.Kind != KindUnknown || !strings.Contains(r.Error, "it has: none") {
		t.Errorf("reply %+v, want unknown naming none", r)
	}
}

func TestScriptToolsGetARefusedAskOrSampleThrownAndOtherOpsLeftToThem(t *testing.T) {
	t.Parallel()
	tc := runtime.NewContext(runtime.Context{SessionID: "s1"}, nil, func(context.Context, permission.Request) error {
		return &permission.RejectedError{Permission: "deploy"}
	})
	c := &Call{Tool: "t", Context: tc}
	_, ok, err := Script(context.Background(), c, NameAsk, json.RawMessage(`{"permission":"deploy","patterns":["prod"]}`))
	if !ok || permission.Kind(err) != "rejected" || c.PermissionError() == nil {
		t.Errorf("ask = %v, %v; want the rejection, kept for the call", ok, err)
	}
	if _, ok, _ := Script(context.Background(), c, "fs.read", nil); ok {
		t.Error("Script answered fs.read, which the script engine answers itself")
	}
	if _, ok, _ := Script(context.Background(), c, NameStateGet, nil); ok {
		t.Error("Script answered state_get, which only wasm guests are offered")
	}
	if _, ok, err := Script(context.Background(), c, NameSample, json.RawMessage(`{}`)); !ok || err == nil || !strings.Contains(err.Error(), `"sampling": true`) {
		t.Errorf("sample = %v, %v; want it answered, refused without the grant", ok, err)
	}
}
