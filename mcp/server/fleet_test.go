package server_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/toolhost/toolhost/internal/third_party/gosdk/mcp"

	"github.com/toolhost/toolhost/internal/serve/httpguard"
	"github.com/toolhost/toolhost/mcp/server"
	"github.com/toolhost/toolhost/runtime/session"
)

// fleetOf is n replicas on one store, each serving --stateless HTTP with
// the named tokens alice and bob, behind a round-robin proxy; it returns
// the proxy's URL.
func fleetOf(t *testing.T, store session.Store, n int) string {
	t.Helper()
	var toks httpguard.Tokens
	for _, name := range []string{"alice", "bob"} {
		if err := toks.Add(name, "tok-"+name); err != nil {
			t.Fatal(err)
		}
	}
	var targets []*url.URL
	for range n {
		r := newReplica(t, store)
		hs := httptest.NewServer(r.srv.Handler(server.HTTPOptions{Stateless: true, Callers: &toks}))
		t.Cleanup(hs.Close)
		u, _ := url.Parse(hs.URL)
		targets = append(targets, u)
	}
	var next atomic.Int64
	lb := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		target := targets[int(next.Add(1))%len(targets)]
		(&httputil.ReverseProxy{Rewrite: func(pr *httputil.ProxyRequest) { pr.SetURL(target) }, FlushInterval: -1}).ServeHTTP(w, r)
	}))
	t.Cleanup(lb.Close)
	return lb.URL
}

// bearerTransport sends a caller's token.
type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// plainClient is the go-sdk client as a real client uses it: no toolhost
// metadata; it answers every question with answer and counts them.
type plainClient struct {
	cs    *sdk.ClientSession
	asked atomic.Int32
}

func connectPlain(t *testing.T, endpoint, token, version, answer string) *plainClient {
	t.Helper()
	pc := &plainClient{}
	client := sdk.NewClient(&sdk.Implementation{Name: "plain", Version: "v0"}, &sdk.ClientOptions{
		ElicitationHandler: func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			pc.asked.Add(1)
			return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"decision": answer}}, nil
		},
	})
	tr := &sdk.StreamableClientTransport{Endpoint: endpoint, MaxRetries: -1, HTTPClient: &http.Client{Transport: bearerTransport{token}}}
	cs, err := client.Connect(t.Context(), tr, &sdk.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	pc.cs = cs
	return pc
}

func (pc *plainClient) call(t *testing.T, tool string, args map[string]any) *sdk.CallToolResult {
	t.Helper()
	res, err := pc.cs.CallTool(t.Context(), &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return res
}

func TestAPlainClientKeepsOneSessionAcrossReplicasOnBothProtocols(t *testing.T) {
	t.Parallel()
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			t.Parallel()
			store := session.NewMemory()
			front := fleetOf(t, store, 3)
			alice := connectPlain(t, front, "tok-alice", version, "always")
			todo := map[string]any{"todos": []any{map[string]any{"content": "ship it", "status": "pending", "priority": "high"}}}
			alice.call(t, "todowrite", todo)
			for i := range 3 {
				if res := alice.call(t, "todoread", map[string]any{}); !strings.Contains(text(res), "ship it") {
					t.Fatalf("todoread %d after todowrite = %q; want the todo", i, text(res))
				}
			}
			// Asked once; "always" holds on every replica after.
			for i := range 4 {
				if res := alice.call(t, "guarded", map[string]any{"path": "x"}); res.IsError || text(res) != "guarded x" {
					t.Fatalf("guarded call %d = %q (error %v)", i, text(res), res.IsError)
				}
			}
			if n := alice.asked.Load(); n != 1 {
				t.Fatalf("alice was asked %d times; want once, then the always approval", n)
			}
			// Bob's session is his own: no always, no todos.
			bob := connectPlain(t, front, "tok-bob", version, "once")
			if res := bob.call(t, "guarded", map[string]any{"path": "x"}); res.IsError || bob.asked.Load() != 1 {
				t.Fatalf("bob's guarded call = %q, asked %d times; want him asked", text(res), bob.asked.Load())
			}
			if res := bob.call(t, "todoread", map[string]any{}); strings.Contains(text(res), "ship it") {
				t.Fatalf("bob reads alice's todos: %q", text(res))
			}
			// Only an initialize to remember is stored, in the
			// session it binds (so retention sweeps it): none on
			// 2026-07-28, one per client before.
			stored := 0
			for _, c := range []*plainClient{alice, bob} {
				_, ok, err := store.Get(t.Context(), "mcp_"+c.cs.ID(), "toolhost:mcp", "session")
				if err != nil {
					t.Fatal(err)
				}
				if ok {
					stored++
				}
			}
			if want := map[bool]int{true: 0, false: 2}[version >= "2026-07-28"]; stored != want {
				t.Fatalf("%d MCP sessions stored; want %d", stored, want)
			}
		})
	}
}

func TestASessionIdIsRefusedToEveryoneButTheCallerThatOpenedIt(t *testing.T) {
	t.Parallel()
	front := fleetOf(t, session.NewMemory(), 3)
	alice := connectPlain(t, front, "tok-alice", "2025-11-25", "always")
	alice.call(t, "todowrite", map[string]any{"todos": []any{map[string]any{"content": "secret", "status": "pending", "priority": "high"}}})
	id := alice.cs.ID()
	if id == "" {
		t.Fatal("alice's session has no id")
	}
	call := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"todoread","arguments":{}}}`
	tests := []struct {
		name, token, session, body string
		want                       int
	}{
		{name: "bob naming alice's session", token: "tok-bob", session: id, body: call, want: http.StatusNotFound},
		{name: "alice naming a guessed session", token: "tok-alice", session: "ms_AAAAAAAAAAAAAAAAAAAAAAAAAA", body: call, want: http.StatusNotFound},
		{name: "bob naming alice's session without its signature", token: "tok-bob", session: id[:strings.LastIndex(id, "_")], body: call, want: http.StatusNotFound},
		{name: "bob naming alice's session with his own signature cut off", token: "tok-bob", session: id[:len(id)-1], body: call, want: http.StatusNotFound},
		{name: "bob deleting alice's session", token: "tok-bob", session: id, want: http.StatusNotFound},
		{name: "bob answering a question in alice's session", token: "tok-bob", session: id, body: `{"jsonrpc":"2.0","id":1,"result":{"action":"accept","content":{"decision":"always"}}}`, want: http.StatusNotFound},
		{name: "no token at all", token: "", session: id, body: call, want: http.StatusUnauthorized},
		{name: "alice's token followed by another word", token: "tok-alice x", session: id, body: call, want: http.StatusUnauthorized},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			method := http.MethodPost
			if tt.body == "" {
				method = http.MethodDelete
			}
			req, _ := http.NewRequest(method, front, strings.NewReader(tt.body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Mcp-Session-Id", tt.session)
			req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
			if tt.token != "" {
				req.Header.Set("Authorization", "Bearer "+tt.token)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.want || bytes.Contains(b, []byte("secret")) {
				t.Fatalf("status %d, body %q; want %d and nothing of alice's", resp.StatusCode, b, tt.want)
			}
		})
	}
	// Alice's session is still hers.
	if res := alice.call(t, "todoread", map[string]any{}); !strings.Contains(text(res), "secret") {
		t.Fatalf("alice's todoread after the attempts = %q", text(res))
	}
}

func TestASessionNamedInMetaIsBoundToItsFirstCaller(t *testing.T) {
	t.Parallel()
	front := fleetOf(t, session.NewMemory(), 2)
	alice := connectPlain(t, front, "tok-alice", "2026-07-28", "always")
	bob := connectPlain(t, front, "tok-bob", "2026-07-28", "always")
	meta := func(pc *plainClient, tool string) *sdk.CallToolResult {
		res, err := pc.cs.CallTool(t.Context(), &sdk.CallToolParams{Meta: sdk.Meta{server.MetaSessionKey: "ses_shared"}, Name: tool, Arguments: map[string]any{"todos": []any{map[string]any{"content": "mine", "status": "pending", "priority": "high"}}}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := meta(alice, "todowrite"); res.IsError {
		t.Fatalf("alice's todowrite in her named session: %s", text(res))
	}
	if res := meta(bob, "todoread"); !res.IsError || strings.Contains(text(res), "mine") || !strings.Contains(text(res), "another caller") {
		t.Fatalf("bob naming alice's session = %q (error %v); want a refusal", text(res), res.IsError)
	}
}

func TestTwoQuestionsOfOneSessionOnTwoReplicasAreAskedInTurn(t *testing.T) {
	t.Parallel()
	front := fleetOf(t, session.NewMemory(), 2)
	alice := connectPlain(t, front, "tok-alice", "2025-11-25", "once")
	type out struct {
		path string
		res  *sdk.CallToolResult
		err  error
	}
	results := make(chan out, 2)
	// Bounded: without the turn, both wait for an answer numbered 1.
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	for _, p := range []string{"a", "b"} {
		go func() {
			res, err := alice.cs.CallTool(ctx, &sdk.CallToolParams{Name: "guarded", Arguments: map[string]any{"path": p}})
			results <- out{p, res, err}
		}()
	}
	for range 2 {
		o := <-results
		if o.err != nil || o.res.IsError || text(o.res) != "guarded "+o.path {
			t.Fatalf("guarded %s = %v %v", o.path, o.err, o.res)
		}
	}
	if n := alice.asked.Load(); n != 2 {
		t.Fatalf("alice was asked %d times; want once for each call", n)
	}
}
