package inbox_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	sdk "github.com/toolhost/toolhost/internal/third_party/gosdk/mcp"

	"github.com/toolhost/toolhost/internal/serve/inbox"
	"github.com/toolhost/toolhost/internal/testkit/e2e"
)

func TestMain(m *testing.M) {
	code := m.Run()
	e2e.Cleanup()
	os.Exit(code)
}

// inboxURL matches the line `toolhost mcp --ask-fallback inbox` prints.
// The token is the user's, read where it is kept (it is not printed).
var inboxURL = regexp.MustCompile(`toolhost: permission inbox on (http://127\.0\.0\.1:\d+)/ \(run .toolhost inbox.`)

// authed sends req with the inbox's bearer token.
func authed(t *testing.T, req *http.Request, token string) *http.Response {
	t.Helper()
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestTheBinaryParksAsksInTheInbox: `toolhost mcp --ask-fallback inbox`
// on stdio prints the inbox's URL on stderr, and a client without
// elicitation gets its bash call through once a script answers there.
func TestTheBinaryParksAsksInTheInbox(t *testing.T) {
	t.Parallel()
	p := e2e.NewProject(t)
	p.Write("toolhost.json", projectConfig)
	cmd := p.Command("mcp", "--ask-fallback", "inbox")
	pr, pw := io.Pipe()
	cmd.Stderr = pw
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			if m := inboxURL.FindStringSubmatch(sc.Text()); m != nil {
				urls <- m[1]
			}
		}
	}()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "no-elicitation", Version: "v0"}, nil).
		Connect(context.Background(), &sdk.CommandTransport{Command: cmd}, &sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("connect to toolhost mcp: %v", err)
	}
	t.Cleanup(func() { cs.Close(); pw.Close() })
	var url, token string
	select {
	case url = <-urls:
	case <-time.After(patience):
		t.Fatal("toolhost mcp printed no inbox URL")
	}
	token, err = inbox.ReadUserToken(filepath.Join(p.Home, ".local/share", "toolhost"))
	if err != nil {
		t.Fatal(err)
	}

	done := callBash(cs, "echo from-the-binary")
	// Loopback is no boundary against this machine's processes — the
	// model's own bash commands among them: without the user's token,
	// nothing is listed, answered or trusted.
	for _, c := range []struct{ method, path, body string }{
		{"GET", "/api/requests", ""},
		{"GET", "/api/trust", ""},
		{"POST", "/api/trust", `{"digest":"sha256:00"}`},
		{"POST", "/api/requests/x/reply", `{"reply":"always"}`},
	} {
		req, _ := http.NewRequest(c.method, url+c.path, strings.NewReader(c.body))
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s %s without the token: %s, want 401", c.method, c.path, res.Status)
		}
	}
	var q inbox.Request
	for deadline := time.Now().Add(patience); ; time.Sleep(20 * time.Millisecond) {
		req, _ := http.NewRequest("GET", url+"/api/requests", nil)
		res := authed(t, req, token)
		var body struct{ Requests []inbox.Request }
		err = json.NewDecoder(res.Body).Decode(&body)
		res.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if len(body.Requests) == 1 {
			q = body.Requests[0]
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the bash call never reached the inbox")
		}
	}
	req, _ := http.NewRequest("POST", url+"/api/requests/"+q.ID+"/reply", bytes.NewReader([]byte(`{"reply":"once"}`)))
	req.Header.Set("Content-Type", "application/json")
	res := authed(t, req, token)
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("reply: %s", res.Status)
	}
	if r := waitResult(t, done); r.isError || !strings.Contains(r.text, "from-the-binary") {
		t.Errorf("the call after once: %+v", r)
	}
}
