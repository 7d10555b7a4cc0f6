package main_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	sdk "github.com/toolhost/toolhost/internal/third_party/gosdk/mcp"

	"github.com/toolhost/toolhost/internal/testkit/e2e"
)

// The fleet of issue 31: three `toolhost mcp --http --stateless` replicas
// on one PostgreSQL, with named tokens for alice and bob and the inbox on
// the MCP server, behind a round-robin proxy; the clients are the
// official go-sdk client as anyone uses it, with no toolhost metadata.

// fleetTokens are the callers' tokens; the replicas get their hashes.
var fleetTokens = map[string]string{"alice": "tok-alice-0123456789", "bob": "tok-bob-9876543210"}

type fleetE2E struct {
	p     *e2e.Project
	lb    *roundRobin
	front *httptest.Server
}

func startFleet(t *testing.T, config string) *fleetE2E {
	t.Helper()
	storeURL := pg.Database(t)
	p := e2e.NewProject(t)
	p.Write("toolhost.json", config)
	var lines strings.Builder
	for name, tok := range fleetTokens {
		sum := sha256.Sum256([]byte(tok))
		fmt.Fprintf(&lines, "%s=sha256:%s\n", name, hex.EncodeToString(sum[:]))
	}
	tokens := filepath.Join(t.TempDir(), "tokens")
	if err := os.WriteFile(tokens, []byte(lines.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	lb := &roundRobin{live: []int{0, 1, 2}}
	for range 3 {
		lb.rs = append(lb.rs, startReplica(t, p, storeURL, "--tokens-file", tokens, "--ask-fallback", "inbox", "--inbox-on-mcp", "--drain-timeout", "5s"))
	}
	front := httptest.NewServer(lb)
	t.Cleanup(front.Close)
	return &fleetE2E{p: p, lb: lb, front: front}
}

// bearer sends a caller's token on every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// plain is a go-sdk client session of caller; with answer != "" it
// declares elicitation and answers every question so, counting them.
type plain struct {
	cs    *sdk.ClientSession
	asked atomic.Int32
}

func (f *fleetE2E) connect(t *testing.T, caller, version, answer string) *plain {
	t.Helper()
	pl := &plain{}
	var opts sdk.ClientOptions
	if answer != "" {
		opts.ElicitationHandler = func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			pl.asked.Add(1)
			return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"decision": answer}}, nil
		}
	}
	tr := &sdk.StreamableClientTransport{Endpoint: f.front.URL + "/", MaxRetries: -1, HTTPClient: &http.Client{Transport: bearer{fleetTokens[caller]}}}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "plain-" + caller, Version: "v0"}, &opts).Connect(context.Background(), tr, &sdk.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	pl.cs = cs
	return pl
}

func (pl *plain) call(t *testing.T, tool string, args map[string]any) *sdk.CallToolResult {
	t.Helper()
	res, err := pl.cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return res
}

// pending is the inbox's list on replica i, asked directly (not through
// the proxy) as caller.
func (f *fleetE2E) pending(t *testing.T, i int, caller string) []struct{ ID, Permission string } {
	t.Helper()
	var body struct {
		Requests []struct{ ID, Permission string }
	}
	req, _ := http.NewRequest("GET", f.lb.rs[i].url.String()+"api/requests", nil)
	req.Header.Set("Authorization", "Bearer "+fleetTokens[caller])
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("GET /api/requests on replica %d: %s %s", i, resp.Status, b)
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	return body.Requests
}

// waitPending waits until replica i's inbox lists n questions.
func (f *fleetE2E) waitPending(t *testing.T, i, n int) []struct{ ID, Permission string } {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		got := f.pending(t, i, "alice")
		if len(got) == n {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("replica %d's inbox lists %d questions; want %d", i, len(got), n)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// reply answers question id through replica i's inbox.
func (f *fleetE2E) reply(t *testing.T, i int, id, answer string) {
	t.Helper()
	req, _ := http.NewRequest("POST", f.lb.rs[i].url.String()+"api/requests/"+id+"/reply", bytes.NewReader([]byte(`{"reply":"`+answer+`"}`)))
	req.Header.Set("Authorization", "Bearer "+fleetTokens["alice"])
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("reply through replica %d: %s %s", i, resp.Status, b)
	}
}

// other is a live replica other than i.
func (f *fleetE2E) other(i int) int {
	f.lb.mu.Lock()
	defer f.lb.mu.Unlock()
	for _, j := range f.lb.live {
		if j != i {
			return j
		}
	}
	return -1
}

// callingOn starts a call and returns its result channel and the replica
// the proxy sent it to.
func (f *fleetE2E) callingOn(t *testing.T, pl *plain, tool string, args map[string]any) (<-chan *sdk.CallToolResult, <-chan error, int) {
	t.Helper()
	f.lb.mu.Lock()
	before := len(f.lb.calls)
	f.lb.mu.Unlock()
	res, errc := make(chan *sdk.CallToolResult, 1), make(chan error, 1)
	go func() {
		r, err := pl.cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			errc <- err
			return
		}
		res <- r
	}()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		f.lb.mu.Lock()
		n := len(f.lb.calls)
		var holder int
		if n > before {
			holder = f.lb.calls[before]
		}
		f.lb.mu.Unlock()
		if n > before {
			return res, errc, holder
		}
	}
	t.Fatal("the call never reached the proxy")
	return nil, nil, 0
}

func TestPlainClientsKeepTheirSessionsAcrossAFleet(t *testing.T) {
	t.Parallel()
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			t.Parallel()
			f := startFleet(t, `{"permission": {"bash": {"*": "ask"}}}`)
			file := f.p.Write("notes.txt", "hello fleet\n")
			alice := f.connect(t, "alice", version, "always")

			// Read on one replica, edit on the next.
			if res := alice.call(t, "read", map[string]any{"filePath": file}); res.IsError {
				t.Fatalf("read: %s", textOf(res))
			}
			res := alice.call(t, "edit", map[string]any{"filePath": file, "oldString": "hello", "newString": "goodbye"})
			if c := f.lb.lastCalls(2); c[0] == c[1] || res.IsError {
				t.Fatalf("edit on replica %d after read on %d = %q; want it done", c[1], c[0], textOf(res))
			}
			// Todos persist.
			alice.call(t, "todowrite", map[string]any{"todos": []any{map[string]any{"content": "ship it", "status": "pending", "priority": "high"}}})
			for i := range 3 {
				if res := alice.call(t, "todoread", map[string]any{}); !strings.Contains(textOf(res), "ship it") {
					t.Fatalf("todoread %d = %q; want the todo", i, textOf(res))
				}
			}
			// Asked once; "always" holds on every replica after.
			for i, cmd := range []string{"echo one", "echo two", "echo three"} {
				if res := alice.call(t, "bash", map[string]any{"command": cmd, "description": "echo"}); res.IsError || !strings.Contains(textOf(res), strings.TrimPrefix(cmd, "echo ")) {
					t.Fatalf("bash %d = %q", i, textOf(res))
				}
			}
			if n := alice.asked.Load(); n != 1 {
				t.Fatalf("alice was asked %d times; want once, then her always approval", n)
			}
			// Not for another caller.
			bob := f.connect(t, "bob", version, "once")
			if res := bob.call(t, "bash", map[string]any{"command": "echo bob", "description": "echo"}); res.IsError || bob.asked.Load() != 1 {
				t.Fatalf("bob's bash = %q, asked %d times; want him asked", textOf(res), bob.asked.Load())
			}
			if res := bob.call(t, "todoread", map[string]any{}); strings.Contains(textOf(res), "ship it") {
				t.Fatalf("bob reads alice's todos: %q", textOf(res))
			}
		})
	}
}

func TestAFleetsInboxAnswersEveryReplicasQuestionsAndLosesNoneOnDrainOrKill(t *testing.T) {
	t.Parallel()
	f := startFleet(t, `{"permission": {"bash": {"*": "ask"}}}`)
	// No elicitation: questions wait in the inbox.
	pl := f.connect(t, "alice", "2025-11-25", "")
	bash := func(cmd string) map[string]any { return map[string]any{"command": cmd, "description": "echo"} }

	// Parked on one replica, listed and answered through another.
	res, errc, holder := f.callingOn(t, pl, "bash", bash("echo listed"))
	other := f.other(holder)
	q := f.waitPending(t, other, 1)
	f.reply(t, other, q[0].ID, "once")
	select {
	case r := <-res:
		if r.IsError || !strings.Contains(textOf(r), "listed") {
			t.Fatalf("the call answered through replica %d (parked on %d) = %q", other, holder, textOf(r))
		}
	case err := <-errc:
		t.Fatal(err)
	}

	// The holder drains: the call ends, the question stays answerable,
	// and the call made again runs without asking.
	res, errc, holder = f.callingOn(t, pl, "bash", bash("echo drained"))
	other = f.other(holder)
	q = f.waitPending(t, other, 1)
	if err := f.lb.rs[holder].cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	f.lb.remove(holder)
	select {
	case r := <-res:
		if !strings.Contains(textOf(r), "call the tool again") {
			t.Fatalf("the call of drained replica %d = %q; want told to answer and call again", holder, textOf(r))
		}
	case err := <-errc:
		t.Fatalf("the call of drained replica %d: %v", holder, err)
	}
	if err := f.lb.rs[holder].cmd.Wait(); err != nil {
		t.Fatalf("replica %d after SIGTERM: %v", holder, err)
	}
	if got := f.waitPending(t, other, 1); got[0].ID != q[0].ID {
		t.Fatalf("after the drain replica %d lists %v; want %s", other, got, q[0].ID)
	}
	f.reply(t, other, q[0].ID, "once")
	if r := pl.call(t, "bash", bash("echo drained")); r.IsError || !strings.Contains(textOf(r), "drained") {
		t.Fatalf("the call made again after the drain = %q; want it run without asking", textOf(r))
	}

	// The holder is killed: the same, without its help.
	res, errc, holder = f.callingOn(t, pl, "bash", bash("echo killed"))
	other = f.other(holder)
	q = f.waitPending(t, other, 1)
	_ = f.lb.rs[holder].cmd.Process.Kill()
	f.lb.remove(holder)
	select {
	case r := <-res:
		t.Logf("the call of killed replica %d ended with %q", holder, textOf(r))
	case err := <-errc:
		t.Logf("the call of killed replica %d failed: %v", holder, err)
	case <-time.After(30 * time.Second):
		t.Fatal("the call of the killed replica never ended")
	}
	f.reply(t, other, q[0].ID, "once")
	if r := pl.call(t, "bash", bash("echo killed")); r.IsError || !strings.Contains(textOf(r), "killed") {
		t.Fatalf("the call made again after the kill = %q; want it run without asking", textOf(r))
	}
	if got := f.pending(t, other, "alice"); len(got) != 0 {
		t.Fatalf("questions left in the inbox: %v", got)
	}
}

func TestAKilledReplicasParkedCallLosesNoAnswer(t *testing.T) {
	t.Parallel()
	f := startFleet(t, `{"permission": {"bash": {"*": "ask"}}}`)
	client := sdk.NewClient(&sdk.Implementation{Name: "plain-alice", Version: "v0"}, &sdk.ClientOptions{
		// Declares elicitation; the input requests are answered by hand.
		ElicitationHandler: func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			t.Error("the client was asked by elicitation on 2026-07-28")
			return nil, io.EOF
		},
		MultiRoundTrip: &sdk.MultiRoundTripOptions{Disabled: true},
	})
	tr := &sdk.StreamableClientTransport{Endpoint: f.front.URL + "/", MaxRetries: -1, HTTPClient: &http.Client{Transport: bearer{fleetTokens["alice"]}}}
	cs, err := client.Connect(context.Background(), tr, &sdk.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	call := func(state string, answer sdk.InputResponseMap) *sdk.CallToolResult {
		t.Helper()
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "bash", Arguments: map[string]any{"command": "echo survived", "description": "echo"}, RequestState: state, InputResponses: answer})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	asked := call("", nil)
	if !asked.NeedsInput() {
		t.Fatalf("bash under an ask rule = %q; want an input request", textOf(asked))
	}
	holder := f.lb.lastCalls(1)[0]
	_ = f.lb.rs[holder].cmd.Process.Kill()
	f.lb.remove(holder)
	res := call(asked.RequestState, sdk.InputResponseMap{"permission": &sdk.ElicitResult{Action: "accept", Content: map[string]any{"decision": "once"}}})
	if !res.IsError || !strings.Contains(textOf(res), "recorded for this session") {
		t.Fatalf("the answer, through replica %d, to the call of killed replica %d = %q; want it recorded and a retry asked for", f.lb.lastCalls(1)[0], holder, textOf(res))
	}
	if res := call("", nil); res.NeedsInput() || res.IsError || !strings.Contains(textOf(res), "survived") {
		t.Fatalf("the call made again = %q (needs input %v); want it run without asking", textOf(res), res.NeedsInput())
	}
}
