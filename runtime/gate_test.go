package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/toolhost/toolhost/runtime/config"
	"github.com/toolhost/toolhost/runtime/permission"
)

// gateCase is one entry of testdata/gate_corpus.json: a config (and call
// rules, agent, model), a tool, and whether the gate offers it.
type gateCase struct {
	Name      string             `json:"name"`
	Config    json.RawMessage    `json:"config"`
	CallRules permission.Ruleset `json:"call_rules"`
	Agent     string             `json:"agent"`
	Model     string             `json:"model"`
	Tool      string             `json:"tool"`
	Offered   bool               `json:"offered"`
	// Unlisted: admitted by the gate but left out of a listing (apply_patch
	// for an unknown model, where the listing shows edit and write).
	Unlisted bool `json:"unlisted"`
	// Denied: the refusal is a permission denial (permission.Kind).
	Denied bool `json:"denied"`
	// OwnDenied: offered, but the gate's own-id question (pattern "*") is
	// denied, so the call is refused as a permission denial.
	OwnDenied bool   `json:"own_denied"`
	Reason    string `json:"reason"`
	Remedy    string `json:"remedy"`
}

// countingTool is a tool that records how often it ran; own declares that
// it checks its own permission.
func countingTool(id string, ran *atomic.Int32, own bool) Tool {
	t := countingToolWith(id, ran, Traits{ChecksOwnPermission: own})
	if !own {
		return t.(declared).Tool // declares nothing at all
	}
	return t
}

// countingToolWith is a counting tool declaring tr.
func countingToolWith(id string, ran *atomic.Int32, tr Traits) Tool {
	return Declare(ToolFunc{Name: id, InitFunc: func(context.Context, InitContext) (*Definition, error) {
		return &Definition{
			Description: "Counts its calls.",
			Execute: func(context.Context, json.RawMessage, *Context) (Result, error) {
				ran.Add(1)
				return Result{Title: id, Output: id + " ran"}, nil
			},
		}, nil
	}}, tr)
}

// corpusTools are the tools of the gate corpus: each declares one kind of
// trait, under a name that says which, so the corpus tests the gate's
// reading of declarations, not any built-in (builtins has its own corpus
// for those).
func corpusTools(ran *atomic.Int32) []Tool {
	refuseUnless := func(ok func(Env) bool, reason, remedy string) func(Env) error {
		return func(env Env) error {
			if !ok(env) {
				return NotOffered(reason, remedy)
			}
			return nil
		}
	}
	return []Tool{
		countingToolWith("writer", ran, Traits{Permission: "edit", ChecksOwnPermission: true}),
		countingToolWith("edit", ran, Traits{ChecksOwnPermission: true}),
		countingToolWith("modeled", ran, Traits{ChecksOwnPermission: true, Available: refuseUnless(func(env Env) bool { return env.Model == "" || env.Model == "m1" }, "offered to m1 only", "")}),
		countingToolWith("alternative", ran, Traits{ChecksOwnPermission: true, Available: refuseUnless(func(env Env) bool { return !(env.Listing && env.Model == "") }, "a listing for an unknown model shows the other", "")}),
		countingToolWith("flagged", ran, Traits{ChecksOwnPermission: true, Available: refuseUnless(func(env Env) bool { return env.Config.Experimental.BatchTool }, "its flag is off", `"experimental": {"batch_tool": true}`)}),
		countingToolWith("asking", ran, Traits{ChecksOwnPermission: true, Available: refuseUnless(func(env Env) bool { return env.CanAsk }, "no person can answer", "")}),
		countingToolWith("crashing", ran, Traits{ChecksOwnPermission: true, Available: func(Env) error { panic("broken declaration") }}),
		countingToolWith("plain", ran, Traits{Available: func(Env) error { return errors.New("not today") }}),
		countingToolWith("fallback", ran, Traits{Fallback: true}),
	}
}

// TestGateOffersExactlyWhatTheCorpusSays runs every entry of the corpus
// three ways — Available, the listing (Tools) and a real Call — so the
// listing, the gate and what actually runs cannot disagree.
func TestGateOffersExactlyWhatTheCorpusSays(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("testdata/gate_corpus.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []gateCase
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatalf("gate_corpus.json: %v", err)
	}
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			t.Parallel()
			var cfg config.Config
			if err := json.Unmarshal(tc.Config, &cfg); err != nil {
				t.Fatalf("config: %v", err)
			}
			r := newTestRegistry(t, &cfg)
			var ran atomic.Int32
			r.Add(SourceBuiltin, corpusTools(&ran)...)
			r.Add(SourceWasm, countingTool("probe", &ran, false))

			call := Call{Tool: tc.Tool, Agent: tc.Agent, Model: tc.Model, Rules: tc.CallRules, Args: json.RawMessage(`{}`)}
			err := r.Available(call)
			var u *UnavailableError
			if tc.Offered != (err == nil) {
				t.Fatalf("Available = %v, want offered %v", err, tc.Offered)
			}
			if !tc.Offered {
				if !errors.As(err, &u) {
					t.Fatalf("refusal %T %v, want *UnavailableError", err, err)
				}
				if got := permission.Kind(err) == "denied"; got != tc.Denied {
					t.Errorf("refusal is a permission denial: %v, want %v (%v)", got, tc.Denied, err)
				}
				if !strings.Contains(u.Reason, tc.Reason) || !strings.Contains(u.Remedy, tc.Remedy) {
					t.Errorf("reason %q, remedy %q; want them to contain %q and %q", u.Reason, u.Remedy, tc.Reason, tc.Remedy)
				}
				for _, want := range []string{"is not available to the", "do not call it again", tc.Tool} {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("message %q lacks %q", err, want)
					}
				}
			}

			if len(tc.CallRules) == 0 {
				tools, err := r.Tools(context.Background(), tc.Model, tc.Agent)
				if err != nil {
					t.Fatal(err)
				}
				listed := slices.ContainsFunc(tools, func(ti ToolInfo) bool { return ti.ID == tc.Tool })
				if want := tc.Offered && !tc.Unlisted; listed != want {
					t.Errorf("listed by Tools: %v, want %v", listed, want)
				}
			}

			res, err := r.Call(context.Background(), call)
			if tc.OwnDenied {
				if permission.Kind(err) != "denied" || errors.As(err, &u) || ran.Load() != 0 {
					t.Errorf("call: err %v, ran %d times; want the own-id permission denied", err, ran.Load())
				}
				return
			}
			if tc.Offered {
				if err != nil || ran.Load() != 1 {
					t.Errorf("call: %v (ran %d times), want it to run once", err, ran.Load())
				}
				return
			}
			if !errors.As(err, &u) || ran.Load() != 0 {
				t.Errorf("call: result %+v, err %v, ran %d times; want the gate's refusal and no run", res, err, ran.Load())
			}
		})
	}
}

// TestGateAsksTheOwnPermissionOfToolsThatCheckNone is the gate's second
// question: a tool that does not declare ChecksOwnPermission is asked about
// under its own id, pattern "*", before it runs.
func TestGateAsksTheOwnPermissionOfToolsThatCheckNone(t *testing.T) {
	t.Parallel()
	once := func(context.Context, permission.Request) (permission.Reply, error) {
		return permission.Reply{Kind: permission.Once}, nil
	}
	reject := func(context.Context, permission.Request) (permission.Reply, error) {
		return permission.Reply{Kind: permission.Reject}, nil
	}
	tests := []struct {
		name     string
		perm     string // the "permission" config value
		own      bool   // the tool declares ChecksOwnPermission
		asker    func(context.Context, permission.Request) (permission.Reply, error)
		wantRun  bool
		wantKind permission.Outcome
		wantAsks int
	}{
		{"no rule for it: the default allows", ``, false, nil, true, "", 0},
		{"an explicit allow runs it without asking", `{"probe": "allow"}`, false, nil, true, "", 0},
		{"ask with a person who allows once runs it after one question", `{"probe": "ask"}`, false, once, true, "", 1},
		{"ask with a person who rejects refuses it", `{"probe": "ask"}`, false, reject, false, "rejected", 1},
		{"ask without anyone to ask refuses it", `{"probe": "ask"}`, false, nil, false, "denied", 0},
		{"ask through a wildcard permission name applies", `{"pro*": "ask"}`, false, once, true, "", 1},
		{"a tool that checks its own permission is not asked by the gate", `{"probe": "ask"}`, true, nil, true, "", 0},
		{"a partial deny still lets the gate's star pattern through", `{"probe": {"secret*": "deny"}}`, false, nil, true, "", 0},
		{"a single-character pattern deny matches the star pattern and refuses", `{"probe": {"?": "deny"}}`, false, nil, false, "denied", 0},
		{"a global ask asks for the tool", `"ask"`, false, once, true, "", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var cfg config.Config
			if tt.perm != "" {
				if err := json.Unmarshal([]byte(`{"permission": `+tt.perm+`}`), &cfg); err != nil {
					t.Fatal(err)
				}
			}
			var mu sync.Mutex
			var asks []permission.Request
			r := newTestRegistry(t, &cfg, func(o *Options) {
				if tt.asker != nil {
					o.Asker = permission.AskerFunc(func(ctx context.Context, req permission.Request) (permission.Reply, error) {
						mu.Lock()
						asks = append(asks, req)
						mu.Unlock()
						return tt.asker(ctx, req)
					})
				}
			})
			var ran atomic.Int32
			r.Add(SourceWasm, countingTool("probe", &ran, tt.own))
			_, err := r.Call(context.Background(), Call{Tool: "probe", SessionID: "ses_1", CallID: "c1", Args: json.RawMessage(`{"x":1}`)})
			if got := ran.Load() == 1; got != tt.wantRun {
				t.Errorf("ran: %v, want %v (err %v)", got, tt.wantRun, err)
			}
			if got := permission.Kind(err); got != tt.wantKind {
				t.Errorf("permission kind %q (err %v), want %q", got, err, tt.wantKind)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(asks) != tt.wantAsks {
				t.Fatalf("%d questions %+v, want %d", len(asks), asks, tt.wantAsks)
			}
			for _, a := range asks {
				if a.Permission != "probe" || !slices.Equal(a.Patterns, []string{"*"}) || a.Tool != "probe" || a.CallID != "c1" || a.SessionID != "ses_1" {
					t.Errorf("question %+v, want permission probe, pattern *, with the call's ids", a)
				}
				if args, _ := a.Metadata["arguments"].(json.RawMessage); string(args) != `{"x":1}` {
					t.Errorf("question metadata %v, want the arguments", a.Metadata)
				}
			}
		})
	}
}

func TestAnApprovalAlwaysAtTheGateLastsTheSession(t *testing.T) {
	t.Parallel()
	var cfg config.Config
	if err := json.Unmarshal([]byte(`{"permission": {"probe": "ask"}}`), &cfg); err != nil {
		t.Fatal(err)
	}
	var asked atomic.Int32
	r := newTestRegistry(t, &cfg, func(o *Options) {
		o.Asker = permission.AskerFunc(func(context.Context, permission.Request) (permission.Reply, error) {
			asked.Add(1)
			return permission.Reply{Kind: permission.Always}, nil
		})
	})
	var ran atomic.Int32
	r.Add(SourceMCP, countingTool("probe", &ran, false))
	for range 3 {
		if _, err := r.Call(context.Background(), Call{Tool: "probe", SessionID: "ses_a"}); err != nil {
			t.Fatal(err)
		}
	}
	if asked.Load() != 1 || ran.Load() != 3 {
		t.Errorf("asked %d times, ran %d times; want one question for three calls", asked.Load(), ran.Load())
	}
}

// TestRoutingToInvalidSkipsTheGate: invalid is never offered, yet a call
// the registry cannot understand still reaches it, even for an agent whose
// rules deny everything not named.
func TestRoutingToInvalidSkipsTheGate(t *testing.T) {
	t.Parallel()
	for _, agent := range []string{"build", "explore"} {
		r := newTestRegistry(t, nil)
		var ran atomic.Int32
		r.Add(SourceBuiltin, countingToolWith("invalid", &ran, Traits{Fallback: true}))
		if _, err := r.Call(context.Background(), Call{Tool: "frobnicate", Agent: agent}); err != nil || ran.Load() != 1 {
			t.Errorf("%s: unknown tool: err %v, invalid ran %d times; want it routed to invalid", agent, err, ran.Load())
		}
		if _, err := r.Call(context.Background(), Call{Tool: "invalid", Agent: agent}); err == nil || ran.Load() != 1 {
			t.Errorf("%s: a direct call of invalid: err %v, ran %d times; want the gate's refusal", agent, err, ran.Load())
		}
	}
}

func TestAvailableNamesAnUnknownAgent(t *testing.T) {
	t.Parallel()
	r := newTestRegistry(t, nil)
	if err := r.Available(Call{Tool: "probe", Agent: "nobody"}); err == nil || !strings.Contains(err.Error(), `unknown agent "nobody"`) {
		t.Errorf("err = %v, want the unknown agent named", err)
	}
}

func TestWithOwnPermissionKeepsTheOtherTraitsAndTheTool(t *testing.T) {
	t.Parallel()
	shared := &Definition{Description: "Shared."}
	inner := ToolFunc{Name: "x", InitFunc: func(context.Context, InitContext) (*Definition, error) { return shared, nil }}
	tool := WithOwnPermission(Declare(inner, Traits{Permission: "edit", Delegates: true}))
	tr := TraitsOf(tool)
	if !tr.ChecksOwnPermission || tr.Permission != "edit" || !tr.Delegates || tool.ID() != "x" {
		t.Errorf("traits %+v of %q", tr, tool.ID())
	}
	if def, err := tool.Init(context.Background(), InitContext{}); err != nil || def != shared {
		t.Errorf("init: %v, %v; want the tool's own definition", def, err)
	}
	if u, ok := tool.(interface{ Unwrap() Tool }); !ok || u.Unwrap().ID() != "x" {
		t.Error("a declared tool does not unwrap to the tool it wraps")
	}
	if tr := TraitsOf(inner); tr.Permission != "" || tr.ChecksOwnPermission || tr.Available != nil || tr.Patterns != nil || tr.Fallback || tr.Delegates || tr.Hints != nil {
		t.Errorf("a tool that declares nothing has traits %+v", tr)
	}
}

// A module's claimed traits (a wasm traits export) may add questions but
// never remove one: its declared permission is asked in addition to its
// id, a rule written for the tool by name still applies, and a claim of
// checking its own permission is ignored.
func TestClaimedTraitsAddQuestionsButNeverRemoveOne(t *testing.T) {
	t.Parallel()
	claim := Traits{Claimed: true, Permission: "edit", Patterns: func(json.RawMessage) []string { return []string{"notes.md"} }}
	tests := []struct {
		name      string
		perm      string // the "permission" config value
		traits    Traits
		wantRun   bool
		wantKind  permission.Outcome
		wantAsked []string // "permission pattern" of each question, in order
	}{
		{"an edit rule governs a tool that claims edit", `{"edit": {"*.md": "ask"}}`, claim, true, "", []string{"edit notes.md"}},
		{"an edit deny hides it", `{"edit": "deny"}`, claim, false, "denied", nil},
		{"a deny by the tool's name still applies", `{"probe": "deny", "edit": "allow"}`, claim, false, "denied", nil},
		{"an ask by the tool's name is asked too", `{"probe": "ask", "edit": {"*.md": "ask"}}`, claim, true, "", []string{"probe *", "edit notes.md"}},
		{"claiming to check its own permission does not skip the gate", `{"probe": "ask"}`, Traits{Claimed: true, ChecksOwnPermission: true}, true, "", []string{"probe *"}},
		{"a built-in's own check is still honoured", `{"probe": "ask"}`, Traits{ChecksOwnPermission: true}, true, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var cfg config.Config
			if err := json.Unmarshal([]byte(`{"permission": `+tt.perm+`}`), &cfg); err != nil {
				t.Fatal(err)
			}
			var mu sync.Mutex
			var asked []string
			r := newTestRegistry(t, &cfg, func(o *Options) {
				o.Asker = permission.AskerFunc(func(ctx context.Context, req permission.Request) (permission.Reply, error) {
					mu.Lock()
					asked = append(asked, req.Permission+" "+strings.Join(req.Patterns, ","))
					mu.Unlock()
					return permission.Reply{Kind: permission.Once}, nil
				})
			})
			var ran atomic.Int32
			r.Add(SourceWasm, Declare(countingTool("probe", &ran, false), tt.traits))
			_, err := r.Call(context.Background(), Call{Tool: "probe", SessionID: "ses_1", CallID: "c1", Args: json.RawMessage(`{"path":"notes.md"}`)})
			if got := ran.Load() == 1; got != tt.wantRun {
				t.Errorf("ran: %v, want %v (err %v)", got, tt.wantRun, err)
			}
			if got := permission.Kind(err); got != tt.wantKind {
				t.Errorf("permission kind %q (err %v), want %q", got, err, tt.wantKind)
			}
			mu.Lock()
			defer mu.Unlock()
			if !slices.Equal(asked, tt.wantAsked) {
				t.Errorf("asked %q, want %q", asked, tt.wantAsked)
			}
			if !tt.wantRun && tt.wantKind == "denied" {
				if err := r.Available(Call{Tool: "probe"}); err == nil {
					t.Error("a tool denied outright is still offered")
				}
			}
		})
	}
}
