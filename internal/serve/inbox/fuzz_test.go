package inbox_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/internal/serve/inbox"
	"github.com/toolhost/toolhost/runtime/permission"
)

// FuzzReplyBody posts arbitrary bodies to the reply endpoint of a parked
// request: the server never fails (5xx), and only a valid answer is
// accepted — and then it is the answer the asker receives.
func FuzzReplyBody(f *testing.F) {
	for _, seed := range []string{
		`{"reply":"once"}`, `{"reply":"always"}`, `{"reply":"reject","message":"no"}`,
		`{"reply":"reject","message":"\u202e\u0000"}`, `{"reply":"once","message":"x"}`,
		`{"reply":null}`, `[]`, `{"reply":"reject"}{}`, `{"reply":"reject","message":"` + strings.Repeat("é", 3000) + `"}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, body string) {
		ib := inbox.New(inbox.Options{Timeout: time.Hour})
		defer ib.Close()
		got := make(chan permission.Reply, 1)
		go func() {
			r, err := ib.Ask(context.Background(), permission.Request{Permission: "bash", Patterns: []string{"ls"}})
			if err == nil {
				got <- r
			}
			close(got)
		}()
		var id string
		for id == "" {
			if p := ib.Pending(); len(p) == 1 {
				id = p[0].ID
			} else {
				runtime.Gosched()
			}
		}
		h := ib.Handler(inbox.HandlerOptions{Addr: "127.0.0.1:1"})
		req := httptest.NewRequest("POST", "/api/requests/"+id+"/reply", strings.NewReader(body))
		req.Host = "127.0.0.1:1"
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("body %q: status %d %s", body, rec.Code, rec.Body)
		}
		if rec.Code != http.StatusOK {
			if len(ib.Pending()) != 1 {
				t.Fatalf("body %q was refused (%d) but the request is no longer pending", body, rec.Code)
			}
			return
		}
		r, ok := <-got
		if !ok {
			t.Fatalf("body %q was accepted but the asker got no reply", body)
		}
		switch r.Kind {
		case permission.Once, permission.Always:
			if r.Message != "" {
				t.Fatalf("body %q: %s with a message", body, r.Kind)
			}
		case permission.Reject:
			if len(r.Message) > inbox.MaxMessage {
				t.Fatalf("body %q: a message of %d bytes was accepted", body, len(r.Message))
			}
		default:
			t.Fatalf("body %q: accepted reply %q", body, r.Kind)
		}
	})
}
