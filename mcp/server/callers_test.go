package server_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/toolhost/toolhost/internal/third_party/gosdk/mcp"

	"github.com/toolhost/toolhost/internal/serve/httpguard"
	"github.com/toolhost/toolhost/mcp/server"
	"github.com/toolhost/toolhost/runtime/config"
	"github.com/toolhost/toolhost/runtime/permission"
	"github.com/toolhost/toolhost/runtime/session"
)

// One server with named callers, without --stateless: the go-sdk keeps the
// MCP sessions in memory. A session is still its opener's alone — its
// Mcp-Session-Id and a toolhost session named in _meta alike.
func TestAStatefulServerBindsSessionsToTheirCallerToo(t *testing.T) {
	t.Parallel()
	var toks httpguard.Tokens
	for _, name := range []string{"alice", "bob"} {
		if err := toks.Add(name, "tok-"+name); err != nil {
			t.Fatal(err)
		}
	}
	r := newReplica(t, session.NewMemory())
	hs := httptest.NewServer(r.srv.Handler(server.HTTPOptions{Callers: &toks}))
	t.Cleanup(hs.Close)
	alice := connectPlain(t, hs.URL, "tok-alice", "2025-11-25", "always")
	bob := connectPlain(t, hs.URL, "tok-bob", "2025-11-25", "always")
	todos := map[string]any{"todos": []any{map[string]any{"content": "secret", "status": "pending", "priority": "high"}}}
	named := func(pc *plainClient, tool string) *sdk.CallToolResult {
		res, err := pc.cs.CallTool(t.Context(), &sdk.CallToolParams{Meta: sdk.Meta{server.MetaSessionKey: "ses_named"}, Name: tool, Arguments: todos})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := named(alice, "todowrite"); res.IsError {
		t.Fatalf("alice's todowrite in her named session: %s", text(res))
	}
	if res := named(bob, "todoread"); !res.IsError || strings.Contains(text(res), "secret") {
		t.Errorf("bob naming alice's _meta session = %q (error %v); want a refusal", text(res), res.IsError)
	}
	alice.call(t, "todowrite", todos)
	req, _ := http.NewRequest(http.MethodPost, hs.URL, strings.NewReader(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"todoread","arguments":{}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", alice.cs.ID())
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	req.Header.Set("Authorization", "Bearer tok-bob")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode < 400 || strings.Contains(string(b), "secret") {
		t.Errorf("bob with alice's Mcp-Session-Id: %d %q; want a refusal", resp.StatusCode, b)
	}
	if res := alice.call(t, "todoread", map[string]any{}); !strings.Contains(text(res), "secret") {
		t.Errorf("alice's own todoread = %q", text(res))
	}
}

// writesStore is a memory store that remembers every key written.
type writesStore struct {
	*session.Memory
	mu   sync.Mutex
	keys map[[3]string]bool
}

func (w *writesStore) Update(ctx context.Context, sid, ns, key string, fn func([]byte, bool) ([]byte, error)) error {
	w.mu.Lock()
	w.keys[[3]string{sid, ns, key}] = true
	w.mu.Unlock()
	return w.Memory.Update(ctx, sid, ns, key, fn)
}

// Retention forgets a session once nothing in it has been written for a
// while (pgstore's sweep deletes the session's rows). What binds an MCP
// session and a named toolhost session to their caller must go with
// them: kept elsewhere, in one always-active bookkeeping session, they
// were never swept, so every MCP session ever opened — one per request
// of a client that does not keep the id — stayed in the store for good.
func TestWhatRetentionForgetsOfASessionTakesItsBindingsAlong(t *testing.T) {
	t.Parallel()
	store := &writesStore{Memory: session.NewMemory(), keys: map[[3]string]bool{}}
	front := fleetOf(t, store, 2)
	alice := connectPlain(t, front, "tok-alice", "2025-11-25", "always")
	alice.call(t, "todowrite", map[string]any{"todos": []any{map[string]any{"content": "mine", "status": "pending", "priority": "high"}}})
	if res, err := alice.cs.CallTool(t.Context(), &sdk.CallToolParams{Meta: sdk.Meta{server.MetaSessionKey: "ses_named"}, Name: "todoread", Arguments: map[string]any{}}); err != nil || res.IsError {
		t.Fatalf("alice's call in a named session: %v %v", err, res)
	}
	id := alice.cs.ID()
	// The sweep of both idle sessions.
	for _, sid := range []string{"mcp_" + id, "ses_named"} {
		if err := store.DeleteSession(t.Context(), sid); err != nil {
			t.Fatal(err)
		}
	}
	store.mu.Lock()
	defer store.mu.Unlock()
	for k := range store.keys {
		if !strings.Contains(k[0]+k[2], id) && !strings.Contains(k[0]+k[2], "ses_named") {
			continue
		}
		if _, ok, _ := store.Memory.Get(t.Context(), k[0], k[1], k[2]); ok {
			t.Errorf("after the sweep of alice's sessions the store still holds session %q namespace %q key %q", k[0], k[1], k[2])
		}
	}
}

// heldAsker holds every question until the test ends.
type heldAsker struct{ waiting atomic.Int32 }

func (h *heldAsker) Ask(ctx context.Context, _ permission.Request) (permission.Reply, error) {
	h.waiting.Add(1)
	defer h.waiting.Add(-1)
	<-ctx.Done()
	return permission.Reply{}, ctx.Err()
}

// Questions waiting in the permission inbox are parked calls too: each
// holds its call (goroutines, a wasm instance, a child process) for as
// long as nobody answers. --max-parked bounds them as it bounds the
// calls parked for a round trip.
func TestCallsWaitingInTheInboxAreBoundedByMaxParked(t *testing.T) {
	t.Parallel()
	held := &heldAsker{}
	r := newReplica(t, session.NewMemory(), server.Options{AskFallback: config.AskFallbackInbox, Inbox: held, MaxParked: 2})
	hs := httptest.NewServer(r.srv.Handler(server.HTTPOptions{}))
	t.Cleanup(hs.Close)
	ctx, cancel := context.WithCancel(t.Context())
	t.Cleanup(cancel)
	connect := func() *sdk.ClientSession {
		client := sdk.NewClient(&sdk.Implementation{Name: "no-elicitation", Version: "v0"}, nil)
		cs, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: hs.URL, MaxRetries: -1}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	for i := range 2 {
		cs := connect()
		go func() {
			_, _ = cs.CallTool(ctx, &sdk.CallToolParams{Name: "guarded", Arguments: map[string]any{"path": fmt.Sprint("p", i)}})
		}()
	}
	deadline := time.Now().Add(30 * time.Second)
	for held.waiting.Load() < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := held.waiting.Load(); n != 2 {
		t.Fatalf("%d questions wait in the inbox; want 2", n)
	}
	callCtx, stop := context.WithTimeout(ctx, 10*time.Second)
	defer stop()
	res, err := connect().CallTool(callCtx, &sdk.CallToolParams{Name: "guarded", Arguments: map[string]any{"path": "third"}})
	if err != nil {
		t.Fatalf("the third call: %v (it waited instead of being refused)", err)
	}
	if !res.IsError || !strings.Contains(text(res), "--max-parked") {
		t.Fatalf("the third call = %q (error %v); want a refusal naming --max-parked", text(res), res.IsError)
	}
	if n := held.waiting.Load(); n != 2 {
		t.Errorf("%d questions wait in the inbox after the refusal; want 2", n)
	}
}

// A POST that asks nothing (a notification, a body that is not JSON-RPC)
// opens no MCP session: it would store a record per request for nothing.
func TestAPostThatAsksNothingOpensNoSession(t *testing.T) {
	t.Parallel()
	store := &writesStore{Memory: session.NewMemory(), keys: map[[3]string]bool{}}
	front := fleetOf(t, store, 1)
	for _, body := range []string{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, `not json`, `[]`} {
		req, _ := http.NewRequest(http.MethodPost, front, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer tok-alice")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
			t.Errorf("POST %s opened session %s", body, id)
		}
	}
	store.mu.Lock()
	defer store.mu.Unlock()
	if len(store.keys) != 0 {
		t.Errorf("POSTs that ask nothing wrote %d keys: %v", len(store.keys), store.keys)
	}
}
