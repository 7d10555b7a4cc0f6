package server_test

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/toolhost/toolhost/internal/third_party/gosdk/mcp"

	"github.com/toolhost/toolhost/builtins"
	"github.com/toolhost/toolhost/mcp/server"
	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/config"
	"github.com/toolhost/toolhost/runtime/session"
)

// The protocol versions the tests speak: the sessionless one the go-sdk
// client prefers (permission questions travel as input requests), and the
// last one with the initialize handshake (server-sent elicitation).
const (
	protoRoundTrip = "2026-07-28"
	protoLegacy    = "2025-11-25"
)

var protocols = []string{protoRoundTrip, protoLegacy}

// guardedParams are the arguments of the test tool "guarded", which asks
// permission "guarded" for its path, with a diff as metadata.
type guardedParams struct {
	Path string `json:"path" jsonschema:"description=What to guard"`
}

// pingParams are the arguments of the test tool "ping", which reports
// Steps progress updates before it answers.
type pingParams struct {
	Steps int `json:"steps" jsonschema:"description=How many progress updates"`
}

func testTools() []runtime.Tool {
	guarded := runtime.WithOwnPermission(runtime.Define("guarded", "Asks permission guarded for a path.", func(ctx context.Context, p guardedParams, tc *runtime.Context) (runtime.Result, error) {
		if err := tc.Ask(ctx, runtime.PermissionRequest{
			Permission: "guarded",
			Patterns:   []string{p.Path},
			Always:     []string{p.Path},
			Metadata:   map[string]any{"diff": "--- a/" + p.Path + "\n+++ b/" + p.Path + "\n-old\n+new\n"},
		}); err != nil {
			return runtime.Result{}, err
		}
		return runtime.Result{Title: p.Path, Output: "guarded " + p.Path}, nil
	}))
	ping := runtime.Define("ping", "Reports progress, then answers pong.", func(ctx context.Context, p pingParams, tc *runtime.Context) (runtime.Result, error) {
		for i := 1; i <= p.Steps; i++ {
			tc.Metadata("step", map[string]any{"step": i})
		}
		return runtime.Result{Title: "ping", Output: "pong"}, nil
	})
	return []runtime.Tool{guarded, ping}
}

// fixture is a registry over a temporary project with the built-in tools
// and the test tools; "guarded" is asked about, everything else allowed.
type fixture struct {
	dir string
	reg *runtime.Registry
	srv *server.Server
}

func newFixture(t testing.TB, permissionJSON string) *fixture {
	t.Helper()
	dir := t.TempDir()
	var cfg config.Config
	if permissionJSON == "" {
		permissionJSON = `{"guarded": "ask"}`
	}
	if err := json.Unmarshal([]byte(`{"permission": `+permissionJSON+`}`), &cfg); err != nil {
		t.Fatal(err)
	}
	bolt, err := session.Open(filepath.Join(t.TempDir(), "sessions.db"))
	if err != nil {
		t.Fatal(err)
	}
	// As the host opens it: read stamps are written behind.
	store := session.NewWriteBehind(bolt, session.DefaultWriteBehindWindow)
	t.Cleanup(func() { store.Close() })
	reg, err := runtime.NewRegistry(runtime.Options{Config: &cfg, Store: store, Asker: server.Asker{}, Directory: dir, DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	reg.Add(runtime.SourceBuiltin, builtins.All(builtins.Options{})...)
	reg.Add(runtime.SourceRuntime, testTools()...)
	srv, err := server.New(context.Background(), reg, server.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{dir: dir, reg: reg, srv: srv}
}

func (f *fixture) write(t testing.TB, rel, content string) string {
	t.Helper()
	p := filepath.Join(f.dir, rel)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// connect joins a go-sdk client to the server in memory.
func (f *fixture) connect(t testing.TB, proto string, opts *sdk.ClientOptions) *sdk.ClientSession {
	t.Helper()
	ct, st := sdk.NewInMemoryTransports()
	ctx := context.Background()
	if _, err := f.srv.Connect(ctx, st); err != nil {
		t.Fatal(err)
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "v0"}, opts).Connect(ctx, ct, &sdk.ClientSessionOptions{ProtocolVersion: proto})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func call(t testing.TB, cs *sdk.ClientSession, tool string, args any) (*sdk.CallToolResult, string) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("call %s: %v", tool, err)
	}
	return res, text(res)
}

func text(res *sdk.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func TestToolsListOffersTheAgentsToolsWithSchemasAndHints(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "")
	for _, proto := range protocols {
		t.Run(proto, func(t *testing.T) {
			cs := f.connect(t, proto, nil)
			byName := map[string]*sdk.Tool{}
			for tool, err := range cs.Tools(context.Background(), nil) {
				if err != nil {
					t.Fatal(err)
				}
				byName[tool.Name] = tool
			}
			for _, want := range []string{"read", "write", "edit", "bash", "glob", "grep", "list", "todowrite", "todoread", "webfetch", "guarded", "ping"} {
				if byName[want] == nil {
					t.Errorf("tools/list lacks %s; got %v", want, keys(byName))
				}
			}
			if byName["invalid"] != nil {
				t.Errorf("tools/list offers the internal invalid tool")
			}
			schema, _ := json.Marshal(byName["read"].InputSchema)
			if !strings.Contains(string(schema), `"filePath"`) {
				t.Errorf("read's inputSchema lacks filePath: %s", schema)
			}
			tests := []struct {
				tool                           string
				readOnly, destructive, openNet bool
			}{
				{"read", true, false, false},
				{"grep", true, false, false},
				{"todoread", true, false, false},
				{"write", false, true, false},
				{"bash", false, true, false},
				{"webfetch", true, false, true},
				{"todowrite", false, false, false},
			}
			for _, tt := range tests {
				a := byName[tt.tool].Annotations
				if a == nil {
					t.Errorf("%s has no annotations", tt.tool)
					continue
				}
				if a.ReadOnlyHint != tt.readOnly || a.DestructiveHint == nil || *a.DestructiveHint != tt.destructive || a.OpenWorldHint == nil || *a.OpenWorldHint != tt.openNet {
					t.Errorf("%s annotations = %+v, want readOnly %v destructive %v openWorld %v", tt.tool, a, tt.readOnly, tt.destructive, tt.openNet)
				}
			}
			if byName["guarded"].Annotations != nil {
				t.Errorf("a non-built-in tool got hints: %+v", byName["guarded"].Annotations)
			}
		})
	}
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func TestToolsCallRunsThroughTheRegistry(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "")
	f.write(t, "hello.txt", "hello from the project\n")
	tests := []struct {
		name      string
		tool      string
		args      any
		isError   bool
		wantInOut string
	}{
		{"a read returns the file with line numbers", "read", map[string]any{"filePath": "hello.txt"}, false, "hello from the project"},
		{"arguments that fail the schema are a tool error naming the problem", "read", map[string]any{}, true, "invalid arguments"},
		{"a wrong type is a tool error too", "read", map[string]any{"filePath": 7}, true, "filePath"},
		{"a missing file is a tool error with the tool's message", "read", map[string]any{"filePath": "nope.txt"}, true, "nope.txt"},
		{"a rule-free ask without elicitation is refused with the rule to add", "guarded", map[string]any{"path": "x"}, true, `"guarded": {"x": "allow"}`},
	}
	for _, proto := range protocols {
		cs := f.connect(t, proto, nil)
		for _, tt := range tests {
			t.Run(proto+"/"+tt.name, func(t *testing.T) {
				res, out := call(t, cs, tt.tool, tt.args)
				if res.IsError != tt.isError {
					t.Errorf("isError = %v, want %v; output %q", res.IsError, tt.isError, out)
				}
				if !strings.Contains(out, tt.wantInOut) {
					t.Errorf("output %q does not contain %q", out, tt.wantInOut)
				}
			})
		}
	}
}

func TestTheMCPSessionIsTheToolhostSession(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "")
	for _, proto := range protocols {
		t.Run(proto, func(t *testing.T) {
			a := f.connect(t, proto, nil)
			b := f.connect(t, proto, nil)
			todos := map[string]any{"todos": []map[string]any{{"content": "ship " + proto, "status": "pending", "priority": "high"}}}
			if res, out := call(t, a, "todowrite", todos); res.IsError {
				t.Fatalf("todowrite: %s", out)
			}
			if _, out := call(t, a, "todoread", map[string]any{}); !strings.Contains(out, "ship "+proto) {
				t.Errorf("the same connection does not see its todos: %s", out)
			}
			if _, out := call(t, b, "todoread", map[string]any{}); strings.Contains(out, "ship "+proto) {
				t.Errorf("another connection sees the first one's todos: %s", out)
			}
		})
	}
}

// elicitor answers permission forms with a fixed reply and records them.
type elicitor struct {
	mu      sync.Mutex
	asked   []*sdk.ElicitParams
	action  string
	content map[string]any
}

func (e *elicitor) handle(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.asked = append(e.asked, req.Params)
	return &sdk.ElicitResult{Action: e.action, Content: maps.Clone(e.content)}, nil
}

func (e *elicitor) count() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.asked)
}

func TestAskBecomesElicitation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		action  string
		content map[string]any
		// results of three calls: x, x again, y
		wantErr  [3]bool
		wantOut  [3]string
		wantAsks int
	}{
		{
			name: "once allows this call and asks again next time", action: "accept",
			content: map[string]any{"decision": "once"},
			wantOut: [3]string{"guarded x", "guarded x", "guarded y"}, wantAsks: 3,
		},
		{
			name: "always allows the pattern for the rest of the session", action: "accept",
			content: map[string]any{"decision": "always"},
			wantOut: [3]string{"guarded x", "guarded x", "guarded y"}, wantAsks: 2,
		},
		{
			name: "reject refuses and tells the model to stop", action: "accept",
			content: map[string]any{"decision": "reject"},
			wantErr: [3]bool{true, true, true}, wantOut: [3]string{"rejected", "rejected", "rejected"}, wantAsks: 3,
		},
		{
			name: "reject with a message gives the model the feedback", action: "accept",
			content: map[string]any{"decision": "reject", "message": "use the other file"},
			wantErr: [3]bool{true, true, true}, wantOut: [3]string{"use the other file", "use the other file", "use the other file"}, wantAsks: 3,
		},
		{
			name: "declining the form is a rejection, never a silent allow", action: "decline",
			wantErr: [3]bool{true, true, true}, wantOut: [3]string{"rejected", "rejected", "rejected"}, wantAsks: 3,
		},
	}
	for _, proto := range protocols {
		for _, tt := range tests {
			t.Run(proto+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				f := newFixture(t, "")
				e := &elicitor{action: tt.action, content: tt.content}
				cs := f.connect(t, proto, &sdk.ClientOptions{ElicitationHandler: e.handle})
				for i, path := range []string{"x", "x", "y"} {
					res, out := call(t, cs, "guarded", map[string]any{"path": path})
					if res.IsError != tt.wantErr[i] || !strings.Contains(out, tt.wantOut[i]) {
						t.Errorf("call %d (%s): isError %v, output %q; want isError %v containing %q", i+1, path, res.IsError, out, tt.wantErr[i], tt.wantOut[i])
					}
				}
				if got := e.count(); got != tt.wantAsks {
					t.Errorf("asked %d times, want %d", got, tt.wantAsks)
				}
				first := e.asked[0]
				for _, want := range []string{"guarded", "Patterns: x", "+new"} {
					if !strings.Contains(first.Message, want) {
						t.Errorf("elicitation message lacks %q:\n%s", want, first.Message)
					}
				}
			})
		}
	}
}

func TestAllowedCallsNeverElicit(t *testing.T) {
	t.Parallel()
	f := newFixture(t, `{"guarded": "allow"}`)
	e := &elicitor{action: "accept", content: map[string]any{"decision": "reject"}}
	for _, proto := range protocols {
		cs := f.connect(t, proto, &sdk.ClientOptions{ElicitationHandler: e.handle})
		if res, out := call(t, cs, "guarded", map[string]any{"path": "x"}); res.IsError {
			t.Errorf("%s: allowed call failed: %s", proto, out)
		}
	}
	if e.count() != 0 {
		t.Errorf("asked %d times for calls the rules allow", e.count())
	}
}

func TestMetadataBecomesProgressNotifications(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "")
	for _, proto := range protocols {
		t.Run(proto, func(t *testing.T) {
			got := make(chan *sdk.ProgressNotificationParams, 16)
			cs := f.connect(t, proto, &sdk.ClientOptions{ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
				got <- req.Params
			}})
			// A call without a token gets no notifications; the call after it
			// has a token, so anything of the first would show up first.
			call(t, cs, "ping", map[string]any{"steps": 2})
			params := &sdk.CallToolParams{Name: "ping", Arguments: map[string]any{"steps": 3}}
			params.SetProgressToken("tok-1")
			res, err := cs.CallTool(context.Background(), params)
			if err != nil || res.IsError || text(res) != "pong" {
				t.Fatalf("ping: %v %v", err, text(res))
			}
			// The client may hand notifications to its handler after the
			// response; wait for them, giving up after a generous bound.
			var steps []float64
			for len(steps) < 3 {
				select {
				case p := <-got:
					if p.ProgressToken != "tok-1" || p.Message != "step" {
						t.Fatalf("unexpected notification %+v", p)
					}
					steps = append(steps, p.Progress)
				case <-time.After(30 * time.Second):
					t.Fatalf("got %d progress notifications, want 3", len(steps))
				}
			}
			slices.Sort(steps)
			if !slices.Equal(steps, []float64{1, 2, 3}) {
				t.Errorf("progress values %v, want 1, 2, 3", steps)
			}
		})
	}
}

func TestResultsCarryTitleAndMetadata(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "")
	f.write(t, "a.txt", "alpha\n")
	cs := f.connect(t, protoLegacy, nil)
	res, _ := call(t, cs, "read", map[string]any{"filePath": "a.txt"})
	if res.Meta[server.MetaTitleKey] == nil {
		t.Errorf("result _meta lacks the title: %v", res.Meta)
	}
	if _, ok := res.Meta[server.MetaMetadataKey].(map[string]any); !ok {
		t.Errorf("result _meta lacks the metadata: %v", res.Meta)
	}
}

// TestADisabledToolIsNeitherListedNorCallableOverMCP: a tool the agent is
// not offered — disabled by the tools map, or a wasm tool denied outright —
// is missing from tools/list and refused by tools/call, and never runs.
func TestADisabledToolIsNeitherListedNorCallableOverMCP(t *testing.T) {
	t.Parallel()
	var cfg config.Config
	if err := json.Unmarshal([]byte(`{"tools": {"ping": false, "probe": false}, "permission": {"probe": "deny"}}`), &cfg); err != nil {
		t.Fatal(err)
	}
	reg, err := runtime.NewRegistry(runtime.Options{Config: &cfg, Asker: server.Asker{}, Directory: t.TempDir(), DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	ran := map[string]int{}
	count := func(id string) runtime.Tool {
		return runtime.Define(id, "Counts its calls.", func(context.Context, struct{}, *runtime.Context) (runtime.Result, error) {
			mu.Lock()
			defer mu.Unlock()
			ran[id]++
			return runtime.Result{Output: id + " ran"}, nil
		})
	}
	reg.Add(runtime.SourceRuntime, count("ping"), count("allowed"))
	reg.Add(runtime.SourceWasm, count("probe"))
	srv, err := server.New(context.Background(), reg, server.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{reg: reg, srv: srv}
	for _, proto := range protocols {
		t.Run(proto, func(t *testing.T) {
			cs := f.connect(t, proto, nil)
			var listed []string
			for tool, err := range cs.Tools(context.Background(), nil) {
				if err != nil {
					t.Fatal(err)
				}
				listed = append(listed, tool.Name)
			}
			if !slices.Contains(listed, "allowed") || slices.Contains(listed, "ping") || slices.Contains(listed, "probe") {
				t.Errorf("tools/list = %v, want allowed and neither ping nor probe", listed)
			}
			for _, id := range []string{"ping", "probe"} {
				res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: id, Arguments: map[string]any{}})
				if err == nil && !res.IsError {
					t.Errorf("tools/call %s succeeded: %q", id, text(res))
				}
			}
			if res, out := call(t, cs, "allowed", map[string]any{}); res.IsError || out != "allowed ran" {
				t.Errorf("tools/call allowed: %q", out)
			}
		})
	}
	mu.Lock()
	defer mu.Unlock()
	if ran["ping"] != 0 || ran["probe"] != 0 || ran["allowed"] != len(protocols) {
		t.Errorf("runs %v, want only allowed to run, once per protocol", ran)
	}
}
