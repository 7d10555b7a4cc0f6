package server_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	sdk "github.com/toolhost/toolhost/internal/third_party/gosdk/mcp"

	"github.com/toolhost/toolhost/builtins"
	"github.com/toolhost/toolhost/mcp/server"
	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/config"
	"github.com/toolhost/toolhost/runtime/session"
)

// serverWith is a registry over a temporary project with the built-in
// tools, the test tools and the task tool (with runner), under cfgJSON,
// served with opts.
func serverWith(t *testing.T, cfgJSON string, runner builtins.SubagentRunner, opts server.Options) *fixture {
	t.Helper()
	dir := t.TempDir()
	var cfg config.Config
	if err := json.Unmarshal([]byte(cfgJSON), &cfg); err != nil {
		t.Fatal(err)
	}
	store, err := session.Open(filepath.Join(t.TempDir(), "sessions.db"))
	if err != nil {
		t.Fatal(err)
	}
	reg, err := runtime.NewRegistry(runtime.Options{Config: &cfg, Store: store, Asker: server.Asker{}, Directory: dir, DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	reg.Add(runtime.SourceBuiltin, builtins.All(builtins.Options{})...)
	reg.Add(runtime.SourceBuiltin, builtins.Task(runner))
	reg.Add(runtime.SourceRuntime, testTools()...)
	srv, err := server.New(context.Background(), reg, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return &fixture{dir: dir, reg: reg, srv: srv}
}

// connectAs joins a go-sdk client that introduces itself as name; a non-nil
// elicit handler declares the elicitation capability.
func (f *fixture) connectAs(t *testing.T, name, proto string, elicit func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error)) *sdk.ClientSession {
	t.Helper()
	ct, st := sdk.NewInMemoryTransports()
	ctx := context.Background()
	if _, err := f.srv.Connect(ctx, st); err != nil {
		t.Fatal(err)
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: name, Version: "1.18.33"}, &sdk.ClientOptions{ElicitationHandler: elicit}).Connect(ctx, ct, &sdk.ClientSessionOptions{ProtocolVersion: proto})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func listTools(t *testing.T, cs *sdk.ClientSession) map[string]*sdk.Tool {
	t.Helper()
	out := map[string]*sdk.Tool{}
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		out[tool.Name] = tool
	}
	return out
}

// TestTheAskFallbackDecidesForClientsThatCannotElicit: with "allow" an ask
// rule lets the call run (the client's own prompt admitted it), with
// "deny" or no setting it is refused with the rule to add; a deny rule
// refuses under every fallback, and a client that can elicit is asked
// whatever the fallback says.
func TestTheAskFallbackDecidesForClientsThatCannotElicit(t *testing.T) {
	t.Parallel()
	const rules = `{"permission": {"guarded": {"*": "ask", "secret*": "deny"}, "bash": {"*": "ask", "rm *": "deny"}}}`
	declined := func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		return &sdk.ElicitResult{Action: "decline"}, nil
	}
	tests := []struct {
		name     string
		fallback string
		elicit   func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error)
		tool     string
		args     map[string]any
		wantErr  bool
		want     string
	}{
		{"allow lets an asked call of a tool that asks itself run", "allow", nil, "guarded", map[string]any{"path": "x"}, false, "guarded x"},
		{"allow lets an asked bash command run", "allow", nil, "bash", map[string]any{"command": "echo fallback-ran", "description": "echo"}, false, "fallback-ran"},
		{"allow does not lift a deny rule on a path", "allow", nil, "guarded", map[string]any{"path": "secret.txt"}, true, "denied"},
		{"allow does not lift a deny rule on a command", "allow", nil, "bash", map[string]any{"command": "rm -rf build", "description": "rm"}, true, "denied"},
		{"allow does not lift a denied command hidden in a list", "allow", nil, "bash", map[string]any{"command": "echo ok && rm -rf build", "description": "rm"}, true, "denied"},
		{"deny refuses an asked call and names the rule", "deny", nil, "guarded", map[string]any{"path": "x"}, true, `"permission": {"guarded": {"x": "allow"}}`},
		{"no setting is deny", "", nil, "bash", map[string]any{"command": "echo nope", "description": "echo"}, true, "cannot show permission requests"},
		{"a client that can elicit is asked, not waved through", "allow", declined, "guarded", map[string]any{"path": "x"}, true, "rejected"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := serverWith(t, rules, nil, server.Options{AskFallback: tt.fallback})
			for _, proto := range protocols {
				if tt.elicit != nil && proto == protoRoundTrip {
					continue // answered through input requests; elicit_test.go covers those
				}
				cs := f.connectAs(t, "opencode", proto, tt.elicit)
				res, out := call(t, cs, tt.tool, tt.args)
				if res.IsError != tt.wantErr || !strings.Contains(out, tt.want) {
					t.Errorf("%s: isError %v, output %q; want isError %v with %q", proto, res.IsError, out, tt.wantErr, tt.want)
				}
			}
		})
	}
}

func TestNewRefusesAnUnknownAskFallback(t *testing.T) {
	t.Parallel()
	reg, err := runtime.NewRegistry(runtime.Options{Directory: t.TempDir(), DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"ask", "Allow", "yes", " allow"} {
		if _, err := server.New(context.Background(), reg, server.Options{AskFallback: v}); err == nil || !strings.Contains(err.Error(), `use "deny", "allow" or "inbox"`) {
			t.Errorf("AskFallback %q: err %v, want a refusal naming deny, allow and inbox", v, err)
		}
	}
	if _, err := server.New(context.Background(), reg, server.Options{AskFallback: "inbox"}); err == nil || !strings.Contains(err.Error(), "needs Options.Inbox") {
		t.Errorf("AskFallback inbox without an inbox: err %v, want a refusal", err)
	}
}

// TestToolsAreNamedAsTheClientSeesThem: descriptions, the read-before-write
// refusal and the truncation hint name sibling tools as the client calls
// them — guessed from the client's name, or set by Options.ToolPrefix —
// and an unknown client sees the ids.
func TestToolsAreNamedAsTheClientSeesThem(t *testing.T) {
	t.Parallel()
	prefix := "th_"
	tests := []struct {
		name   string
		client string
		opts   server.Options
		read   string // the read tool as the texts must name it
	}{
		{"OpenCode calls them toolhost_<id>", "opencode", server.Options{}, "toolhost_read"},
		{"Claude Code calls them mcp__toolhost__<id>", "claude-code", server.Options{}, "mcp__toolhost__read"},
		{"Qwen Code, as it introduces itself, calls them mcp__toolhost__<id>", "qwen-cli-mcp-client-toolhost", server.Options{}, "mcp__toolhost__read"},
		{"Qwen Code under another key names it in its own name", "qwen-cli-mcp-client-th", server.Options{}, "mcp__th__read"},
		{"Gemini CLI calls them mcp_toolhost_<id>", "gemini-cli-mcp-client", server.Options{}, "mcp_toolhost_read"},
		{"Codex calls them mcp__toolhost__<id>", "codex-mcp-client", server.Options{}, "mcp__toolhost__read"},
		{"an unknown client sees the ids", "inspector", server.Options{}, "read"},
		{"a configured prefix wins over the guess", "opencode", server.Options{ToolPrefix: &prefix}, "th_read"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := serverWith(t, `{"permission": {"edit": "allow"}, "tool_output": {"max_lines": 5}}`, nil, tt.opts)
			for _, proto := range protocols {
				cs := f.connectAs(t, tt.client, proto, nil)
				tools := listTools(t, cs)
				if tools["edit"] == nil {
					t.Fatalf("%s: edit not listed: %v", proto, keys(tools))
				}
				if d := tools["edit"].Description; !strings.Contains(d, "with the "+tt.read+" tool") {
					t.Errorf("%s: edit's description does not name %s:\n%s", proto, tt.read, d)
				}
				p := f.write(t, "notes.txt", "one\n")
				res, out := call(t, cs, "write", map[string]any{"filePath": p, "content": "two\n"})
				want := tt.read + ` {"filePath":"` + p + `"}`
				if !res.IsError || !strings.Contains(out, want) {
					t.Errorf("%s: writing an unread file: isError %v, %q; want a refusal with %s", proto, res.IsError, out, want)
				}
				f.write(t, "long.txt", strings.Repeat("line\n", 50))
				_, out = call(t, cs, "bash", map[string]any{"command": "cat long.txt", "description": "cat"})
				if tt.read != "read" && !strings.Contains(out, tt.read+` {"filePath":`) {
					t.Errorf("%s: the truncation hint does not give the %s call:\n%s", proto, tt.read, out)
				}
			}
			// The server's list is shared: another client at the same
			// time sees its own names.
			if tt.opts.ToolPrefix == nil && tt.client != "inspector" {
				other := listTools(t, f.connectAs(t, "inspector", protoLegacy, nil))
				if d := other["edit"].Description; !strings.Contains(d, "with the read tool") {
					t.Errorf("another client's list was changed too:\n%s", d)
				}
			}
		})
	}
}

func TestTheReadCheckCanBeTurnedOffForMCPClients(t *testing.T) {
	t.Parallel()
	f := serverWith(t, `{"permission": {"edit": "allow"}}`, nil, server.Options{SkipReadCheck: true})
	cs := f.connectAs(t, "opencode", protoLegacy, nil)
	p := f.write(t, "notes.txt", "one\n")
	if res, out := call(t, cs, "edit", map[string]any{"filePath": p, "oldString": "one", "newString": "two"}); res.IsError {
		t.Fatalf("edit of an unread file with the check off: %s", out)
	}
	// Read through toolhost, then changed behind its back: refused all the same.
	call(t, cs, "read", map[string]any{"filePath": p})
	f.write(t, "notes.txt", "changed elsewhere, longer\n")
	if res, out := call(t, cs, "edit", map[string]any{"filePath": p, "oldString": "changed", "newString": "x"}); !res.IsError || !strings.Contains(out, "modified since it was last read") {
		t.Errorf("edit of a stale file: isError %v, %q; want the staleness refusal", res.IsError, out)
	}
}

// fakeRunner is a SubagentRunner with one subagent, which may name its own
// model.
type fakeRunner struct{ model string }

func (r fakeRunner) Subagents() []*runtime.Agent {
	return []*runtime.Agent{{Name: "explore", Mode: runtime.ModeSubagent, Model: r.model}}
}

func (fakeRunner) RunSubagent(context.Context, builtins.SubagentRequest) (builtins.SubagentResult, error) {
	return builtins.SubagentResult{Text: "done"}, nil
}

// TestToolsThatCannotWorkHereAreNotOffered: task needs a model for its
// subagents, question a person to answer; over MCP without them neither
// is listed, and a call is refused by the gate rather than failing later.
func TestToolsThatCannotWorkHereAreNotOffered(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		cfg      string
		runner   builtins.SubagentRunner
		opts     server.Options
		wantTask bool
	}{
		{"no model anywhere: no task", `{}`, fakeRunner{}, server.Options{}, false},
		{"no runner: no task", `{"model": "m"}`, nil, server.Options{}, false},
		{"a model in the config: task", `{"model": "ollama/qwen3"}`, fakeRunner{}, server.Options{}, true},
		{"a model for the server: task", `{}`, fakeRunner{}, server.Options{Model: "ollama/qwen3"}, true},
		{"a subagent with its own model: task", `{}`, fakeRunner{model: "ollama/qwen3"}, server.Options{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := serverWith(t, tt.cfg, tt.runner, tt.opts)
			cs := f.connectAs(t, "opencode", protoLegacy, nil)
			names := keys(listTools(t, cs))
			if got := slices.Contains(names, "task"); got != tt.wantTask {
				t.Errorf("task listed %v, want %v: %v", got, tt.wantTask, names)
			}
			if slices.Contains(names, "question") {
				t.Errorf("question is listed with nobody to answer: %v", names)
			}
			if !tt.wantTask {
				// The go-sdk answers a call of an unlisted tool itself.
				res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "task", Arguments: map[string]any{"description": "look", "prompt": "look around", "subagent_type": "explore"}})
				if err == nil && !res.IsError {
					t.Errorf("the unoffered task ran: %q", text(res))
				}
			}
		})
	}
}
