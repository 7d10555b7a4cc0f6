package inbox_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/toolhost/toolhost/internal/third_party/gosdk/mcp"

	"github.com/toolhost/toolhost/builtins"
	"github.com/toolhost/toolhost/internal/serve/inbox"
	"github.com/toolhost/toolhost/mcp/server"
	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/config"
)

// patience bounds every wait for something that must happen; it only
// tells "late" from "never".
const patience = 60 * time.Second

// projectConfig asks about every bash command; the rest is allowed.
const projectConfig = `{
  "permission": {
    "bash": "ask"
  }
}
`

// fixture is a project whose toolhost.json asks about bash, served over
// MCP (in memory) with the ask fallback inbox, and the inbox served on a
// loopback port.
type fixture struct {
	dir string
	reg *runtime.Registry
	ib  *inbox.Inbox
	srv *server.Server
	url string // the inbox, "http://127.0.0.1:PORT"
}

type fixtureOptions struct {
	timeout time.Duration
	token   string
}

func newFixture(t testing.TB, o fixtureOptions) *fixture {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "toolhost.json"), []byte(projectConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	loaded, err := config.Load(config.LoadOptions{Directory: dir, Worktree: dir, Home: home, Env: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	ib := inbox.New(inbox.Options{Timeout: o.timeout})
	reg, err := runtime.NewRegistry(runtime.Options{Config: loaded.Config, Asker: server.Asker{}, Directory: dir, Worktree: dir, DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	reg.Add(runtime.SourceBuiltin, builtins.All(builtins.Options{})...)
	ib.Attach(reg)
	t.Cleanup(ib.Close)
	srv, err := server.New(context.Background(), reg, server.Options{AskFallback: config.AskFallbackInbox, Inbox: ib})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = ib.Serve(ctx, ln, inbox.HandlerOptions{Token: o.token})
	}()
	t.Cleanup(func() { cancel(); <-done })
	return &fixture{dir: dir, reg: reg, ib: ib, srv: srv, url: "http://" + ln.Addr().String()}
}

// client connects an MCP client that declares no elicitation, as
// OpenCode, Qwen Code and the Inspector do not.
func (f *fixture) client(t testing.TB) *sdk.ClientSession {
	t.Helper()
	return f.clientSpeaking(t, "2025-11-25")
}

// clientSpeaking is client on the given protocol version.
func (f *fixture) clientSpeaking(t testing.TB, proto string) *sdk.ClientSession {
	t.Helper()
	return f.clientWith(t, proto, nil)
}

// clientWith is a client on proto with opts (nil: no elicitation).
func (f *fixture) clientWith(t testing.TB, proto string, opts *sdk.ClientOptions) *sdk.ClientSession {
	t.Helper()
	ct := pipeTransport(t, f.srv)
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "no-elicitation", Version: "v0"}, opts).Connect(context.Background(), ct, &sdk.ClientSessionOptions{ProtocolVersion: proto})
	if err != nil {
		t.Fatal(err)
	}
	// Parked calls end before the client waits for them to.
	t.Cleanup(func() { f.ib.Close(); cs.Close() })
	return cs
}

// result is a finished tools/call: its text and whether it is an error.
type result struct {
	text    string
	isError bool
	err     error
}

// callBash starts a bash call and returns the channel its result arrives on.
func callBash(cs *sdk.ClientSession, command string) <-chan result {
	out := make(chan result, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "bash", Arguments: map[string]any{"command": command, "description": "test command"}})
		if err != nil {
			out <- result{err: err}
			return
		}
		var b strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(*sdk.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		out <- result{text: b.String(), isError: res.IsError}
	}()
	return out
}

func waitResult(t testing.TB, ch <-chan result) result {
	t.Helper()
	select {
	case r := <-ch:
		if r.err != nil {
			t.Fatalf("tools/call: %v", r.err)
		}
		return r
	case <-time.After(patience):
		t.Fatalf("the call did not finish within %s", patience)
		return result{}
	}
}

// waitPending waits until n requests are parked and returns them.
func (f *fixture) waitPending(t testing.TB, n int) []inbox.Request {
	t.Helper()
	deadline := time.Now().Add(patience)
	for {
		var body struct{ Requests []inbox.Request }
		f.getJSON(t, "/api/requests", &body)
		if len(body.Requests) == n {
			return body.Requests
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d requests pending after %s, want %d", len(body.Requests), patience, n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (f *fixture) getJSON(t testing.TB, path string, v any) {
	t.Helper()
	res, err := http.Get(f.url + path)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(res.Body)
		t.Fatalf("GET %s: %s %s", path, res.Status, b)
	}
	if err := json.NewDecoder(res.Body).Decode(v); err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
}

// post sends body as JSON and returns the status and response text.
func (f *fixture) post(t testing.TB, path string, body any) (int, string) {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	res, err := http.Post(f.url+path, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	text, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(text)
}

// pipeTransport serves srv over a pair of pipes, as ServeStdio serves stdin and
// stdout, and returns the client's end (Server.Connect is not public: the
// SDK's types are toolhost's internal copy's).
func pipeTransport(t testing.TB, srv *server.Server) sdk.Transport {
	t.Helper()
	cr, sw := io.Pipe() // server to client
	sr, cw := io.Pipe() // client to server
	go func() {
		srv.ServeStream(context.Background(), sr, sw)
		sw.Close()
	}()
	t.Cleanup(func() { cw.Close() })
	return &sdk.IOTransport{Reader: cr, Writer: cw}
}
