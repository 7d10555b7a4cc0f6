package inbox_test

import (
	"bufio"
	"context"
	"encoding/json"
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
	"github.com/toolhost/toolhost/runtime/session"
)

// newReplicaFixture is newFixture on a store shared with other replicas,
// its inbox shared through it: one replica of a fleet.
func newReplicaFixture(t *testing.T, dir string, store session.Store) *fixture {
	t.Helper()
	loaded, err := config.Load(config.LoadOptions{Directory: dir, Worktree: dir, Home: t.TempDir(), Env: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	ib := inbox.New(inbox.Options{})
	reg, err := runtime.NewRegistry(runtime.Options{Config: loaded.Config, Store: store, Asker: server.Asker{}, Directory: dir, Worktree: dir, DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	reg.Add(runtime.SourceBuiltin, builtins.All(builtins.Options{})...)
	ib.Attach(reg)
	ctx, cancel := context.WithCancel(context.Background())
	if err := ib.Share(ctx, store); err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(context.Background(), reg, server.Options{AskFallback: config.AskFallbackInbox, Inbox: ib, Relay: store})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { defer close(done); _ = ib.Serve(ctx, ln, inbox.HandlerOptions{}) }()
	t.Cleanup(func() { ib.Close(); srv.Close(); cancel(); <-done })
	return &fixture{dir: dir, reg: reg, ib: ib, srv: srv, url: "http://" + ln.Addr().String()}
}

// callIn is callBash in the toolhost session sid.
func callIn(cs *sdk.ClientSession, sid, command string) <-chan result {
	out := make(chan result, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Meta: sdk.Meta{server.MetaSessionKey: sid}, Name: "bash", Arguments: map[string]any{"command": command, "description": "test command"}})
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

func sharedPair(t *testing.T) (a, b *fixture) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "toolhost.json"), []byte(projectConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	store := session.NewMemory()
	return newReplicaFixture(t, dir, store), newReplicaFixture(t, dir, store)
}

func TestAQuestionParkedOnOneReplicaIsListedAndAnsweredThroughAnother(t *testing.T) {
	t.Parallel()
	a, b := sharedPair(t)
	ch := callIn(a.client(t), "ses_fleet", "echo relayed")
	pending := b.waitPending(t, 1)
	if code, body := b.post(t, "/api/requests/"+pending[0].ID+"/reply", map[string]any{"reply": "once"}); code != 200 {
		t.Fatalf("reply through the other replica: %d %s", code, body)
	}
	if r := waitResult(t, ch); r.isError || !strings.Contains(r.text, "relayed") {
		t.Fatalf("the call answered through another replica = %q (error %v)", r.text, r.isError)
	}
	b.waitPending(t, 0)
	a.waitPending(t, 0)
}

func TestAQuestionOfAStoppedReplicaIsAnsweredForTheRetry(t *testing.T) {
	t.Parallel()
	a, b := sharedPair(t)
	ch := callIn(a.client(t), "ses_drained", "echo again")
	pending := b.waitPending(t, 1)
	a.ib.Close() // the replica drains
	if r := waitResult(t, ch); !r.isError || !strings.Contains(r.text, "call the tool again") {
		t.Fatalf("the call of a stopping replica = %q (error %v); want told to call again after answering", r.text, r.isError)
	}
	if got := b.waitPending(t, 1); got[0].ID != pending[0].ID {
		t.Fatalf("after the drain the other replica lists %v; want the same question", got)
	}
	if code, body := b.post(t, "/api/requests/"+pending[0].ID+"/reply", map[string]any{"reply": "once"}); code != 200 {
		t.Fatalf("reply to the stopped replica's question: %d %s", code, body)
	}
	// The retry, through the other replica, runs without asking.
	if r := waitResult(t, callIn(b.client(t), "ses_drained", "echo again")); r.isError || !strings.Contains(r.text, "again") {
		t.Fatalf("the retry after the recorded answer = %q (error %v); want it run", r.text, r.isError)
	}
	b.waitPending(t, 0)
}

func TestAPageOnOneReplicaIsToldOfAQuestionParkedOnAnother(t *testing.T) {
	t.Parallel()
	a, b := sharedPair(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", b.url+"/api/events", nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	events := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				events <- d
			}
		}
	}()
	if first := <-events; strings.Contains(first, "echo pushed") {
		t.Fatalf("the first state already holds the question: %s", first)
	}
	ch := callIn(a.client(t), "ses_push", "echo pushed")
	for {
		select {
		case e := <-events:
			if !strings.Contains(e, "echo pushed") {
				continue
			}
			var st struct{ Requests []inbox.Request }
			if err := json.Unmarshal([]byte(e), &st); err != nil || len(st.Requests) != 1 {
				t.Fatalf("the pushed state %s: %v", e, err)
			}
			b.post(t, "/api/requests/"+st.Requests[0].ID+"/reply", map[string]any{"reply": "once"})
			if r := waitResult(t, ch); r.isError {
				t.Fatalf("the call = %q", r.text)
			}
			return
		case <-time.After(patience):
			t.Fatal("the other replica's page was never told of the question")
		}
	}
}
