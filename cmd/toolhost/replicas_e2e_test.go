package main_test

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"

	sdk "github.com/toolhost/toolhost/internal/third_party/gosdk/mcp"

	"github.com/toolhost/toolhost/internal/testkit/e2e"
	"github.com/toolhost/toolhost/runtime/session/pgstore/pgtest"
)

var pg pgtest.Shared

// replica is one `toolhost mcp --http --stateless` process.
type replica struct {
	cmd *exec.Cmd
	url *url.URL
}

// startReplica starts one replica on storeURL; "" means the default bbolt
// store in the project's data directory.
func startReplica(t testing.TB, p *e2e.Project, storeURL string, extra ...string) *replica {
	t.Helper()
	cmd := p.Command(append([]string{"mcp", "--http", "127.0.0.1:0", "--stateless", "--log-format", "json"}, extra...)...)
	if storeURL != "" {
		cmd.Env = append(cmd.Env, "TOOLHOST_STORE_URL="+storeURL)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if addr, ok := strings.CutPrefix(sc.Text(), "toolhost: serving MCP on "); ok {
			u, err := url.Parse(strings.TrimSpace(addr))
			if err != nil {
				t.Fatal(err)
			}
			go func() { _, _ = io.Copy(io.Discard, stderr) }()
			return &replica{cmd: cmd, url: u}
		}
		t.Log(sc.Text())
	}
	t.Fatalf("replica exited before serving: %v", sc.Err())
	return nil
}

// roundRobin is the load balancer: each request goes to the next live
// replica, and it records which replica served each tools/call.
type roundRobin struct {
	mu    sync.Mutex
	live  []int
	next  int
	calls []int // replica index of each tools/call, in order
	rs    []*replica
	// tr carries the proxied requests; nil: http.DefaultTransport.
	tr http.RoundTripper
}

func (lb *roundRobin) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	lb.mu.Lock()
	i := lb.live[lb.next%len(lb.live)]
	lb.next++
	if bytes.Contains(body, []byte(`"tools/call"`)) {
		lb.calls = append(lb.calls, i)
	}
	target := lb.rs[i].url
	lb.mu.Unlock()
	proxy := &httputil.ReverseProxy{Rewrite: func(pr *httputil.ProxyRequest) { pr.SetURL(target) }, FlushInterval: -1, Transport: lb.tr}
	proxy.ServeHTTP(w, r)
}

// remove takes replica i out of the rotation, as a health check would.
func (lb *roundRobin) remove(i int) {
	lb.mu.Lock()
	defer lb.mu.Unlock()
	for k, j := range lb.live {
		if j == i {
			lb.live = append(lb.live[:k], lb.live[k+1:]...)
		}
	}
}

func (lb *roundRobin) lastCalls(n int) []int {
	lb.mu.Lock()
	defer lb.mu.Unlock()
	return append([]int(nil), lb.calls[len(lb.calls)-n:]...)
}

func callTool(t *testing.T, cs *sdk.ClientSession, sessionID, tool string, args any, state string, answer sdk.InputResponseMap) *sdk.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{
		Meta: sdk.Meta{"toolhost/session": sessionID}, Name: tool, Arguments: args,
		RequestState: state, InputResponses: answer,
	})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return res
}

func textOf(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func TestThreeReplicasBehindARoundRobinProxyShareSessions(t *testing.T) {
	t.Parallel()
	storeURL := pg.Database(t)
	p := e2e.NewProject(t)
	p.Write("toolhost.json", `{"permission": {"bash": {"*": "ask"}}}`)
	lb := &roundRobin{live: []int{0, 1, 2}}
	for range 3 {
		lb.rs = append(lb.rs, startReplica(t, p, storeURL))
	}
	front := httptest.NewServer(lb)
	defer front.Close()
	tr := &sdk.StreamableClientTransport{Endpoint: front.URL + "/", MaxRetries: -1}
	client := sdk.NewClient(&sdk.Implementation{Name: "e2e", Version: "v0"}, &sdk.ClientOptions{
		ElicitationHandler: func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			t.Error("the client was asked by elicitation; stateless replicas must use input requests")
			return nil, io.EOF
		},
		MultiRoundTrip: &sdk.MultiRoundTripOptions{Disabled: true},
	})
	cs, err := client.Connect(context.Background(), tr, &sdk.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	const sid = "ses_replicas"

	// Todos written through one replica are read through the next.
	callTool(t, cs, sid, "todowrite", map[string]any{"todos": []any{map[string]any{"content": "ship it", "status": "pending", "priority": "high"}}}, "", nil)
	res := callTool(t, cs, sid, "todoread", map[string]any{}, "", nil)
	if c := lb.lastCalls(2); c[0] == c[1] || !strings.Contains(textOf(res), "ship it") {
		t.Fatalf("todoread on replica %d after todowrite on %d = %q; want the todo", c[1], c[0], textOf(res))
	}

	// An ask parked on one replica is answered through another, and the
	// "always" given there is honoured by a third.
	asked := callTool(t, cs, sid, "bash", map[string]any{"command": "echo one", "description": "echo"}, "", nil)
	if !asked.NeedsInput() {
		t.Fatalf("bash under an ask rule = %q; want an input request", textOf(asked))
	}
	res = callTool(t, cs, sid, "bash", map[string]any{"command": "echo one", "description": "echo"}, asked.RequestState,
		sdk.InputResponseMap{"permission": &sdk.ElicitResult{Action: "accept", Content: map[string]any{"decision": "always"}}})
	if c := lb.lastCalls(2); c[0] == c[1] || res.IsError || !strings.Contains(textOf(res), "one") {
		t.Fatalf("answer on replica %d to the ask parked on %d = %q (error %v); want the command's output", c[1], c[0], textOf(res), res.IsError)
	}
	res = callTool(t, cs, sid, "bash", map[string]any{"command": "echo two", "description": "echo"}, "", nil)
	if res.NeedsInput() || !strings.Contains(textOf(res), "two") {
		t.Fatalf("bash after an always approval, on replica %d = %q; want it run without asking", lb.lastCalls(1)[0], textOf(res))
	}

	// One replica dies mid-session; the client carries on through the
	// others and nothing written is lost.
	victim := lb.lastCalls(1)[0]
	_ = lb.rs[victim].cmd.Process.Kill()
	lb.remove(victim)
	for i := range 4 {
		res = callTool(t, cs, sid, "todoread", map[string]any{}, "", nil)
		if res.IsError || !strings.Contains(textOf(res), "ship it") {
			t.Fatalf("todoread %d after replica %d died = %q", i, victim, textOf(res))
		}
	}
}

func TestADrainedReplicaLeavesItsQuestionAnswerableThroughTheOthers(t *testing.T) {
	t.Parallel()
	storeURL := pg.Database(t)
	p := e2e.NewProject(t)
	p.Write("toolhost.json", `{"permission": {"bash": {"*": "ask"}}}`)
	lb := &roundRobin{live: []int{0, 1, 2}}
	for range 3 {
		lb.rs = append(lb.rs, startReplica(t, p, storeURL))
	}
	front := httptest.NewServer(lb)
	defer front.Close()
	client := sdk.NewClient(&sdk.Implementation{Name: "e2e", Version: "v0"}, &sdk.ClientOptions{
		// Declares the elicitation capability; stateless replicas ask
		// through input requests, answered by hand below.
		ElicitationHandler: func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			t.Error("the client was asked by elicitation")
			return nil, io.EOF
		},
		MultiRoundTrip: &sdk.MultiRoundTripOptions{Disabled: true},
	})
	cs, err := client.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: front.URL + "/", MaxRetries: -1}, &sdk.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	const sid = "ses_drain"
	args := map[string]any{"command": "echo drained", "description": "echo"}

	asked := callTool(t, cs, sid, "bash", args, "", nil)
	if !asked.NeedsInput() {
		t.Fatalf("bash under an ask rule = %q; want an input request", textOf(asked))
	}
	// The replica holding the question is told to stop while the person
	// thinks; the load balancer takes it out of rotation.
	holder := lb.lastCalls(1)[0]
	if err := lb.rs[holder].cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	lb.remove(holder)
	if err := lb.rs[holder].cmd.Wait(); err != nil {
		t.Fatalf("replica %d after SIGTERM: %v; want exit status 0", holder, err)
	}

	res := callTool(t, cs, sid, "bash", args, asked.RequestState,
		sdk.InputResponseMap{"permission": &sdk.ElicitResult{Action: "accept", Content: map[string]any{"decision": "once"}}})
	if !res.IsError || !strings.Contains(textOf(res), "recorded for this session") {
		t.Fatalf("the answer, through replica %d, to the question of drained replica %d = %q; want it recorded and a retry asked for", lb.lastCalls(1)[0], holder, textOf(res))
	}
	res = callTool(t, cs, sid, "bash", args, "", nil)
	if res.NeedsInput() || res.IsError || !strings.Contains(textOf(res), "drained") {
		t.Fatalf("the call made again = %q (needs input %v); want it run without asking", textOf(res), res.NeedsInput())
	}
	// The replica that ran it counts the grant.
	ran := lb.rs[lb.lastCalls(1)[0]]
	resp, err := http.Get(ran.url.String() + "metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if want := `toolhost_permission_decisions_total{outcome="allowed_by_grant",permission="bash"} 1`; !strings.Contains(string(body), want) {
		t.Errorf("/metrics of the replica that ran the call lacks %s", want)
	}
}
