package inbox_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/internal/serve/inbox"
	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/permission"
)

// Whoever may reach the inbox must not be able to wear it out: an event
// stream is a goroutine and a subscription (each change renders the whole
// state once per stream), so their number is capped; a closed stream frees
// its place.
func TestEventStreamsAreCapped(t *testing.T) {
	t.Parallel()
	f := newFixture(t, fixtureOptions{})
	open := func(ctx context.Context) *http.Response {
		req, _ := http.NewRequestWithContext(ctx, "GET", f.url+"/api/events", nil)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	first, cancelFirst := context.WithCancel(context.Background())
	defer cancelFirst()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for i := range inbox.MaxEventStreams {
		c := ctx
		if i == 0 {
			c = first
		}
		res := open(c)
		if res.StatusCode != http.StatusOK {
			t.Fatalf("stream %d: %s", i+1, res.Status)
		}
		defer res.Body.Close()
		// The first event is written once the stream is subscribed.
		if _, err := bufio.NewReader(res.Body).ReadString('\n'); err != nil {
			t.Fatal(err)
		}
	}
	res := open(ctx)
	if res.StatusCode != http.StatusServiceUnavailable {
		res.Body.Close() // an event stream: it would never end
		t.Fatalf("stream %d: %s, want 503", inbox.MaxEventStreams+1, res.Status)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if !strings.Contains(string(body), "close") {
		t.Errorf("refusal %q, want it to say to close other pages", body)
	}
	cancelFirst()
	deadline := time.Now().Add(patience)
	for {
		res := open(ctx)
		ok := res.StatusCode == http.StatusOK
		res.Body.Close()
		if ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a closed stream's place was not freed after %s", patience)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Slow clients: a POST whose body never comes, and a kept-alive connection
// that sends nothing more, are dropped rather than held for ever (each
// holds a goroutine and buffers; enough of them exhaust the process).
func TestConnectionsThatStallAreDropped(t *testing.T) {
	t.Parallel()
	f := newFixture(t, fixtureOptions{})
	addr := strings.TrimPrefix(f.url, "http://")
	tests := []struct {
		name string
		send string
		// answered: the first response comes before the stall.
		answered bool
	}{
		{"a reply whose body never ends", "POST /api/requests/req_x/reply HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"reply\":", false},
		{"a kept-alive connection that goes quiet", "GET /api/requests HTTP/1.1\r\nHost: " + addr + "\r\n\r\n", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if _, err := io.WriteString(conn, tt.send); err != nil {
				t.Fatal(err)
			}
			conn.SetReadDeadline(time.Now().Add(patience))
			br := bufio.NewReader(conn)
			if tt.answered {
				res, err := http.ReadResponse(br, nil)
				if err != nil {
					t.Fatal(err)
				}
				io.Copy(io.Discard, res.Body)
				res.Body.Close()
			}
			_, err = io.Copy(io.Discard, br)
			if errors.Is(err, os.ErrDeadlineExceeded) {
				t.Fatalf("the server still holds the connection after %s", patience)
			}
		})
	}
}

// What a tool or model chose is shown in bounded pieces: a megabyte
// command as pattern, or as a call's title, must not make every page load
// and every event carry a megabyte (the preview was bounded already).
func TestWhatTheModelChoseIsShownInBoundedPieces(t *testing.T) {
	t.Parallel()
	ib := inbox.New(inbox.Options{})
	defer ib.Close()
	huge := strings.Repeat("x", 1<<20)
	go ib.Ask(t.Context(), permission.Request{SessionID: "ses_1", Permission: "bash", Patterns: []string{huge}, Always: []string{huge}, Metadata: map[string]any{"command": huge}})
	call := runtime.WatchedCall{Tool: "bash", SessionID: "ses_1", CallID: "call_1", Start: time.Now()}
	ib.CallStarted(t.Context(), call)
	ib.CallEnded(t.Context(), call, runtime.Result{Title: huge, Output: huge}, nil)
	var reqs []inbox.Request
	for deadline := time.Now().Add(patience); len(reqs) == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the request was never parked")
		}
		reqs = ib.Pending()
	}
	const bound = 32 << 10
	q := reqs[0]
	fields := map[string]string{"pattern": q.Patterns[0], "always": q.Always[0], "preview": q.Preview.Text}
	s := ib.Sessions(t.Context())
	if len(s) != 1 || len(s[0].Calls) != 1 {
		t.Fatalf("sessions %+v, want the one call", s)
	}
	fields["title"], fields["output"] = s[0].Calls[0].Title, s[0].Calls[0].Output
	for name, v := range fields {
		if len(v) > bound {
			t.Errorf("the %s is shown whole (%d bytes), want at most %d", name, len(v), bound)
		}
		if !strings.HasSuffix(v, "(cut)") {
			t.Errorf("the %s does not say it was cut: …%q", name, v[max(0, len(v)-20):])
		}
	}
}
