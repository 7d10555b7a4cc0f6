package inbox_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/toolhost/toolhost/internal/httpguard"
	"github.com/toolhost/toolhost/internal/inbox"
	"github.com/toolhost/toolhost/runtime/permission"
)

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
