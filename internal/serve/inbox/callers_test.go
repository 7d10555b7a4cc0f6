package inbox_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/toolhost/toolhost/internal/serve/httpguard"
	"github.com/toolhost/toolhost/internal/serve/inbox"
	"github.com/toolhost/toolhost/runtime/permission"
	"github.com/toolhost/toolhost/runtime/session"
)

// callerTokens are three named callers: two tenants and an operator.
func callerTokens(t *testing.T) *httpguard.Tokens {
	t.Helper()
	toks := &httpguard.Tokens{}
	for name, tok := range map[string]string{"alice": "tok-alice", "bob": "tok-bob", "ops": "tok-ops"} {
		if err := toks.Add(name, tok); err != nil {
			t.Fatal(err)
		}
	}
	return toks
}

// serveAs serves ib's handler with the named callers, "ops" its operator.
func serveAs(t *testing.T, ib *inbox.Inbox) *httptest.Server {
	t.Helper()
	ts := httptest.NewServer(ib.Handler(inbox.HandlerOptions{Callers: callerTokens(t), Operators: []string{"ops"}}))
	t.Cleanup(ts.Close)
	return ts
}

func do(t *testing.T, ts *httptest.Server, token, method, path string, body any) (int, []byte) {
	t.Helper()
	var rd *bytes.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	} else {
		rd = bytes.NewReader(nil)
	}
	req, _ := http.NewRequest(method, ts.URL+path, rd)
	req.Header.Set("Authorization", "Bearer "+token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var buf bytes.Buffer
	_, _ = buf.ReadFrom(res.Body)
	return res.StatusCode, buf.Bytes()
}

func listed(t *testing.T, ts *httptest.Server, token string) []inbox.Request {
	t.Helper()
	code, b := do(t, ts, token, http.MethodGet, "/api/requests", nil)
	if code != 200 {
		t.Fatalf("list as %s: %d %s", token, code, b)
	}
	var out struct{ Requests []inbox.Request }
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out.Requests
}

// askAs parks a bash question of caller in session sid.
func askAs(ib *inbox.Inbox, caller, sid string) <-chan permission.Reply {
	out := make(chan permission.Reply, 1)
	go func() {
		r, _ := ib.Ask(httpguard.WithCaller(context.Background(), caller), permission.Request{SessionID: sid, Permission: "bash", Patterns: []string{"rm -rf /"}, Always: []string{"*"}})
		out <- r
	}()
	return out
}

func waitListed(t *testing.T, ts *httptest.Server, token string, n int) []inbox.Request {
	t.Helper()
	deadline := time.Now().Add(patience)
	for {
		if reqs := listed(t, ts, token); len(reqs) == n || time.Now().After(deadline) {
			return reqs
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// With several callers on one inbox (--inbox-on-mcp with named tokens or
// an identity provider), a caller sees and answers the questions of its
// own calls only; the operator sees and answers all; nobody else trusts
// the project or revokes another's approvals.
func TestAnotherCallerCannotListOrAnswerAQuestionNotItsOwn(t *testing.T) {
	t.Parallel()
	ib := inbox.New(inbox.Options{})
	t.Cleanup(ib.Close)
	ts := serveAs(t, ib)
	got := askAs(ib, "alice", "mcp_ms_alice")
	reqs := waitListed(t, ts, "tok-alice", 1)
	if len(reqs) != 1 {
		t.Fatalf("alice lists %d questions, want her 1", len(reqs))
	}
	id := reqs[0].ID
	if n := len(listed(t, ts, "tok-bob")); n != 0 {
		t.Errorf("bob lists %d of alice's questions, want 0", n)
	}
	if n := len(listed(t, ts, "tok-ops")); n != 1 {
		t.Errorf("the operator lists %d questions, want 1", n)
	}
	for _, path := range []string{"/", "/fragments/requests"} {
		if _, page := do(t, ts, "tok-bob", http.MethodGet, path, nil); bytes.Contains(page, []byte("rm -rf /")) {
			t.Errorf("bob's %s shows alice's command", path)
		}
	}
	if code, b := do(t, ts, "tok-bob", http.MethodPost, "/api/requests/"+id+"/reply", map[string]any{"reply": "always"}); code != http.StatusNotFound {
		t.Errorf("bob answers alice's question: %d %s, want 404", code, b)
	}
	if code, b := do(t, ts, "tok-bob", http.MethodPost, "/api/sessions/mcp_ms_alice/revoke", map[string]any{"permission": "bash", "pattern": "*"}); code != http.StatusNotFound {
		t.Errorf("bob revokes in alice's session: %d %s, want 404", code, b)
	}
	if code, b := do(t, ts, "tok-bob", http.MethodPost, "/api/trust", map[string]any{"digest": "x"}); code != http.StatusForbidden {
		t.Errorf("bob trusts the project: %d %s, want 403", code, b)
	}
	if code, b := do(t, ts, "tok-alice", http.MethodPost, "/api/requests/"+id+"/reply", map[string]any{"reply": "once"}); code != 200 {
		t.Fatalf("alice answers her question: %d %s", code, b)
	}
	if r := <-got; r.Kind != permission.Once {
		t.Errorf("alice's call got %q, want once", r.Kind)
	}
}

// The same holds for a question parked on another replica of a fleet.
func TestAnotherCallerCannotAnswerAQuestionParkedOnAnotherReplica(t *testing.T) {
	t.Parallel()
	store := session.NewMemory()
	a, b := inbox.New(inbox.Options{}), inbox.New(inbox.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() { a.Close(); b.Close(); cancel() })
	for _, ib := range []*inbox.Inbox{a, b} {
		if err := ib.Share(ctx, store); err != nil {
			t.Fatal(err)
		}
	}
	tsB := serveAs(t, b)
	got := askAs(a, "alice", "mcp_ms_alice")
	reqs := waitListed(t, tsB, "tok-ops", 1)
	if len(reqs) != 1 {
		t.Fatalf("the operator lists %d questions on replica b, want 1", len(reqs))
	}
	if n := len(listed(t, tsB, "tok-bob")); n != 0 {
		t.Errorf("bob lists %d of alice's questions on replica b, want 0", n)
	}
	if code, body := do(t, tsB, "tok-bob", http.MethodPost, "/api/requests/"+reqs[0].ID+"/reply", map[string]any{"reply": "always"}); code != http.StatusNotFound {
		t.Errorf("bob answers alice's question through replica b: %d %s, want 404", code, body)
	}
	if n := len(listed(t, tsB, "tok-alice")); n != 1 {
		t.Fatalf("alice lists %d questions on replica b after bob's try, want 1", n)
	}
	if code, body := do(t, tsB, "tok-alice", http.MethodPost, "/api/requests/"+reqs[0].ID+"/reply", map[string]any{"reply": "once"}); code != 200 {
		t.Fatalf("alice answers through replica b: %d %s", code, body)
	}
	if r := <-got; r.Kind != permission.Once {
		t.Errorf("alice's call got %q, want once", r.Kind)
	}
}

// Without operators, a question of no authenticated caller is the inbox's:
// every caller sees it, while a named caller's own stay its own.
func TestANamedCallersQuestionIsListedAndAnsweredByThatCallerOnly(t *testing.T) {
	t.Parallel()
	var toks httpguard.Tokens
	for _, n := range []string{"alice", "bob"} {
		if err := toks.Add(n, "tok-"+n); err != nil {
			t.Fatal(err)
		}
	}
	ib := inbox.New(inbox.Options{})
	t.Cleanup(ib.Close)
	srv := httptest.NewServer(ib.Handler(inbox.HandlerOptions{Callers: &toks}))
	t.Cleanup(srv.Close)
	do := func(caller, method, path, body string) (int, []inbox.Request) {
		t.Helper()
		req, _ := http.NewRequest(method, srv.URL+path, bytes.NewReader([]byte(body)))
		req.Header.Set("Authorization", "Bearer tok-"+caller)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var out struct{ Requests []inbox.Request }
		_ = json.NewDecoder(res.Body).Decode(&out)
		return res.StatusCode, out.Requests
	}
	replies := make(chan permission.Reply, 2)
	ask := func(ctx context.Context, cmd string) {
		go func() {
			r, _ := ib.Ask(ctx, permission.Request{SessionID: "s", Permission: "bash", Patterns: []string{cmd}})
			replies <- r
		}()
	}
	ask(httpguard.WithCaller(context.Background(), "alice"), "echo alice")
	ask(context.Background(), "echo nobody's")
	for deadline := time.Now().Add(patience); len(ib.Pending()) < 2; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the questions were never parked")
		}
	}
	_, bobSees := do("bob", "GET", "/api/requests", "")
	_, aliceSees := do("alice", "GET", "/api/requests", "")
	if len(bobSees) != 1 || bobSees[0].Patterns[0] != "echo nobody's" || len(aliceSees) != 2 {
		t.Fatalf("bob sees %v, alice %v; want bob the unowned question only, alice both", bobSees, aliceSees)
	}
	var alices string
	for _, r := range aliceSees {
		if r.Caller == "alice" {
			alices = r.ID
		}
	}
	if code, _ := do("bob", "POST", "/api/requests/"+alices+"/reply", `{"reply":"always"}`); code != http.StatusNotFound {
		t.Fatalf("bob answering alice's question: status %d; want 404", code)
	}
	if code, _ := do("alice", "POST", "/api/requests/"+alices+"/reply", `{"reply":"once"}`); code != http.StatusOK {
		t.Fatalf("alice answering her question: status %d", code)
	}
	if r := <-replies; r.Kind != permission.Once {
		t.Fatalf("alice's call got %v; want her once", r)
	}
}
