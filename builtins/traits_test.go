package builtins

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/config"
	"github.com/toolhost/toolhost/runtime/permission"
)

type nobodyAnswers struct{}

func (nobodyAnswers) AskQuestions(context.Context, []runtime.Question) ([][]string, error) {
	return nil, errors.New("nobody here")
}

// builtinRegistry is a registry holding every built-in, configured by cfg
// (JSON), with a Questioner when ask is set and o applied last.
func builtinRegistry(t *testing.T, cfg string, ask bool, o ...func(*runtime.Options)) *runtime.Registry {
	t.Helper()
	var c config.Config
	if cfg != "" {
		if err := json.Unmarshal([]byte(cfg), &c); err != nil {
			t.Fatalf("config %s: %v", cfg, err)
		}
	}
	opts := runtime.Options{Config: &c, DataDir: t.TempDir(), Directory: t.TempDir()}
	if ask {
		opts.Questioner = nobodyAnswers{}
	}
	for _, f := range o {
		f(&opts)
	}
	r, err := runtime.NewRegistry(opts)
	if err != nil {
		t.Fatal(err)
	}
	r.Add(runtime.SourceBuiltin, everyBuiltin(t)...)
	return r
}

// TestBuiltinsAreListedWhereTheirDeclarationsOfferThem: what a listing
// shows on a model under a config is decided by each tool's declaration
// and the rules, read the same way for every tool.
func TestBuiltinsAreListedWhereTheirDeclarationsOfferThem(t *testing.T) {
	t.Parallel()
	// The tools whose offer depends on something; the rest are always
	// listed unless a rule hides them.
	watched := []string{"apply_patch", "batch", "bash", "codesearch", "edit", "invalid", "lsp", "multiedit", "question", "websearch", "write"}
	tests := []struct {
		name  string
		cfg   string
		model string
		ask   bool
		want  []string
	}{
		{"defaults list edit and write but not batch, lsp, question or search", ``, "claude-sonnet", false,
			[]string{"bash", "edit", "multiedit", "write"}},
		{"gpt-5 gets apply_patch instead of edit and write", ``, "gpt-5", false,
			[]string{"apply_patch", "bash", "multiedit"}},
		{"gpt-4.1 keeps edit and write", ``, "gpt-4.1", false,
			[]string{"bash", "edit", "multiedit", "write"}},
		{"gpt-oss keeps edit and write", ``, "openai/gpt-oss-120b", false,
			[]string{"bash", "edit", "multiedit", "write"}},
		{"an unknown model is listed edit and write", ``, "", false,
			[]string{"bash", "edit", "multiedit", "write"}},
		{"flags, a search endpoint and a person add batch, lsp, question and search", `{"experimental": {"batch_tool": true, "lsp_tool": true}, "search": {}}`, "", true,
			[]string{"bash", "batch", "codesearch", "edit", "lsp", "multiedit", "question", "websearch", "write"}},
		{"a wholly denied edit permission hides every tool declaring it", `{"permission": {"edit": "deny"}}`, "gpt-5", false,
			[]string{"bash"}},
		{"a partial bash deny keeps bash", `{"permission": {"bash": {"rm *": "deny"}}}`, "", false,
			[]string{"bash", "edit", "multiedit", "write"}},
		{"the tools map disables by id and wildcard", `{"tools": {"multiedit": false, "b*": false}}`, "", false,
			[]string{"edit", "write"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := builtinRegistry(t, tt.cfg, tt.ask)
			tools, err := r.Tools(context.Background(), tt.model, "")
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, ti := range tools {
				if slices.Contains(watched, ti.ID) {
					got = append(got, ti.ID)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("listed %v, want %v", got, tt.want)
			}
		})
	}
}

// TestTheGateRefusesBuiltinsWhereTheirDeclarationsDo: a direct call is
// admitted exactly where the declaration offers the tool, with the reason
// and remedy the declaration gives.
func TestTheGateRefusesBuiltinsWhereTheirDeclarationsDo(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		cfg     string
		model   string
		tool    string
		offered bool
		reason  string
		remedy  string
	}{
		{"apply_patch is refused to a model that uses edit", ``, "claude-sonnet-4", "apply_patch", false, "edits files with edit and write", ""},
		{"apply_patch is offered to gpt-5", ``, "gpt-5", "apply_patch", true, "", ""},
		{"apply_patch is refused to gpt-4.1", ``, "gpt-4.1", "apply_patch", false, "gpt-5 on", ""},
		{"an unknown model may call apply_patch directly", ``, "", "apply_patch", true, "", ""},
		{"edit is refused to gpt-5", ``, "gpt-5", "edit", false, "apply_patch instead", ""},
		{"write is refused to gpt-5", ``, "gpt-5", "write", false, "apply_patch instead", ""},
		{"batch is refused while its flag is off", ``, "", "batch", false, "experimental", `"experimental": {"batch_tool": true}`},
		{"lsp is refused while its flag is off", ``, "", "lsp", false, "experimental", `"experimental": {"lsp_tool": true}`},
		{"websearch is refused without a search endpoint", ``, "", "websearch", false, "no search endpoint", `"search"`},
		{"codesearch is refused without a search endpoint", ``, "", "codesearch", false, "no search endpoint", `"search"`},
		{"question is refused without a person to ask", ``, "", "question", false, "no person", ""},
		{"invalid is never called directly", ``, "", "invalid", false, "reached by routing", ""},
		{"the edit permission's deny refuses write too", `{"permission": {"edit": "deny"}}`, "", "write", false, "denies it outright", `"permission": {"edit": "allow"}`},
		{"a deny of write's own id does not reach it: edit governs it", `{"permission": {"write": "deny"}}`, "", "write", true, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := builtinRegistry(t, tt.cfg, false).Available(runtime.Call{Tool: tt.tool, Model: tt.model})
			if tt.offered != (err == nil) {
				t.Fatalf("Available = %v, want offered %v", err, tt.offered)
			}
			var u *runtime.UnavailableError
			if !tt.offered && (!errors.As(err, &u) || !strings.Contains(u.Reason, tt.reason) || !strings.Contains(u.Remedy, tt.remedy)) {
				t.Errorf("refusal %v; want reason with %q, remedy with %q", err, tt.reason, tt.remedy)
			}
		})
	}
}

// undeclared is a tool as a wasm module named id would be: it declares
// nothing, and reports that it ran.
func undeclared(id string, ran *sync.Map) runtime.Tool {
	return runtime.Define(id, "A module's "+id+".", func(context.Context, struct{}, *runtime.Context) (runtime.Result, error) {
		ran.Store(id, true)
		return runtime.Result{Output: "module " + id}, nil
	})
}

// TestAModuleNamedLikeABuiltinTakesOnNoneOfItsRules is the edit.wasm:
// a module that shadows edit or write gets the treatment its declaration
// (none) earns, not the built-in's — its own id's permission, asked by the
// gate before it runs, offered to every model, no effect hints — and when
// it is removed the built-in and its rules are back.
func TestAModuleNamedLikeABuiltinTakesOnNoneOfItsRules(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var asked []permission.Request
	asker := permission.AskerFunc(func(_ context.Context, req permission.Request) (permission.Reply, error) {
		mu.Lock()
		asked = append(asked, req)
		mu.Unlock()
		return permission.Reply{Kind: permission.Once}, nil
	})
	r := builtinRegistry(t, `{"permission": {"edit": "deny", "write": "ask"}}`, false, func(o *runtime.Options) { o.Asker = asker })
	if err := r.Available(runtime.Call{Tool: "write"}); err == nil {
		t.Fatal("the built-in write is offered though edit is denied")
	}

	var ran sync.Map
	r.Add(runtime.SourceWasm, undeclared("write", &ran), undeclared("edit", &ran))
	if got := r.Permission("write"); got != "write" {
		t.Errorf("write.wasm is governed by %q, want its own name", got)
	}
	if tr := r.Traits("edit"); tr.ChecksOwnPermission || tr.Hints != nil || tr.Available != nil {
		t.Errorf("edit.wasm took on the built-in's traits: %+v", tr)
	}
	if err := r.Available(runtime.Call{Tool: "edit", Model: "gpt-5"}); err == nil {
		t.Error("edit.wasm escaped the deny on its own name")
	}
	res, err := r.Call(context.Background(), runtime.Call{Tool: "write", Model: "gpt-5", SessionID: "s"})
	if err != nil || res.Output != "module write" {
		t.Fatalf("write.wasm on gpt-5: %q, %v; want it offered and run after the gate's question", res.Output, err)
	}
	mu.Lock()
	if len(asked) != 1 || asked[0].Permission != "write" || !slices.Equal(asked[0].Patterns, []string{"*"}) {
		t.Errorf("the gate asked %+v, want one question for write, pattern *", asked)
	}
	mu.Unlock()

	r.Remove(runtime.SourceWasm, "write", "edit")
	if got := r.Permission("write"); got != "edit" {
		t.Errorf("after removal write is governed by %q, want the built-in's edit", got)
	}
	if err := r.Available(runtime.Call{Tool: "write"}); err == nil {
		t.Error("after removal the built-in write is offered though edit is denied")
	}
	if tr := r.Traits("edit"); !tr.ChecksOwnPermission || tr.Hints == nil || !tr.Hints.Destructive {
		t.Errorf("after removal edit's traits are %+v, want the built-in's", tr)
	}
}

// TestAModuleThatDeclaresEditsRulesGetsThem: the declaration, not the name,
// decides — a tool of any source and any id that declares the edit
// permission is governed by it.
func TestAModuleThatDeclaresEditsRulesGetsThem(t *testing.T) {
	t.Parallel()
	r := builtinRegistry(t, `{"permission": {"edit": "deny"}}`, false)
	var ran sync.Map
	r.Add(runtime.SourceWasm, runtime.Declare(undeclared("rewrite", &ran), runtime.Traits{Permission: "edit"}))
	if err := r.Available(runtime.Call{Tool: "rewrite"}); permission.Kind(err) != "denied" {
		t.Errorf("a tool declaring the edit permission: %v, want the edit deny to refuse it", err)
	}
	if _, ok := ran.Load("rewrite"); ok {
		t.Error("it ran")
	}
}

func TestEveryBuiltinDeclaresItsEffects(t *testing.T) {
	t.Parallel()
	for _, tool := range everyBuiltin(t) {
		tr := runtime.TraitsOf(tool)
		if tr.Hints == nil {
			t.Errorf("%s declares no effect hints; MCP clients would assume the worst of a reviewed tool", tool.ID())
			continue
		}
		if tr.Hints.ReadOnly && tr.Hints.Destructive {
			t.Errorf("%s claims to be read-only and destructive", tool.ID())
		}
	}
}
