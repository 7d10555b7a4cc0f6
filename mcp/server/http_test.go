package server_test

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sdk "github.com/toolhost/toolhost/internal/third_party/gosdk/mcp"

	"github.com/toolhost/toolhost/mcp/server"
)

// serveHTTP serves the fixture on a loopback port with opts.
func (f *fixture) serveHTTP(t *testing.T, opts server.HTTPOptions) *httptest.Server {
	t.Helper()
	ts := httptest.NewUnstartedServer(nil)
	opts.Addr = ts.Listener.Addr().String()
	ts.Config.Handler = f.srv.Handler(opts)
	ts.Start()
	t.Cleanup(ts.Close)
	return ts
}

// headerRT adds headers to every request.
type headerRT map[string]string

func (h headerRT) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h {
		r.Header.Set(k, v)
	}
	return http.DefaultTransport.RoundTrip(r)
}

func httpClient(t *testing.T, url, proto string, headers map[string]string, opts *sdk.ClientOptions) (*sdk.ClientSession, error) {
	t.Helper()
	tr := &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: headerRT(headers)}, MaxRetries: -1}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "v0"}, opts).Connect(context.Background(), tr, &sdk.ClientSessionOptions{ProtocolVersion: proto})
	if err == nil {
		t.Cleanup(func() { cs.Close() })
	}
	return cs, err
}

// post sends one raw initialize request and returns the status code.
func post(t *testing.T, url string, headers map[string]string) int {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range headers {
		if k == "Host" {
			req.Host = v
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func TestHTTPGuards(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "")
	ts := f.serveHTTP(t, server.HTTPOptions{Token: "s3cret"})
	port := ts.Listener.Addr().String()[strings.LastIndex(ts.Listener.Addr().String(), ":"):]
	tests := []struct {
		name    string
		headers map[string]string
		want    int
	}{
		{"a request without the token is refused", nil, http.StatusUnauthorized},
		{"a request with a wrong token is refused", map[string]string{"Authorization": "Bearer nope"}, http.StatusUnauthorized},
		{"a request with the token is served", map[string]string{"Authorization": "Bearer s3cret"}, http.StatusOK},
		{"a page from another origin is refused", map[string]string{"Authorization": "Bearer s3cret", "Origin": "https://evil.example"}, http.StatusForbidden},
		{"a page from localhost is served", map[string]string{"Authorization": "Bearer s3cret", "Origin": "http://localhost:3000"}, http.StatusOK},
		{"a rebound DNS name in Host is refused", map[string]string{"Authorization": "Bearer s3cret", "Host": "evil.example" + port}, http.StatusForbidden},
		{"localhost in Host is served", map[string]string{"Authorization": "Bearer s3cret", "Host": "localhost" + port}, http.StatusOK},
		{"another port in Host is refused", map[string]string{"Authorization": "Bearer s3cret", "Host": "127.0.0.1:1"}, http.StatusForbidden},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := post(t, ts.URL, tt.headers); got != tt.want {
				t.Errorf("status %d, want %d", got, tt.want)
			}
		})
	}
	t.Run("the go-sdk client is refused without the token and served with it", func(t *testing.T) {
		if _, err := httpClient(t, ts.URL, protoLegacy, nil, nil); err == nil {
			t.Errorf("connected without a token")
		}
		cs, err := httpClient(t, ts.URL, protoLegacy, map[string]string{"Authorization": "Bearer s3cret"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		f.write(t, "h.txt", "over http\n")
		if res, out := call(t, cs, "read", map[string]any{"filePath": "h.txt"}); res.IsError || !strings.Contains(out, "over http") {
			t.Errorf("read over http: %v %q", res.IsError, out)
		}
	})
}

func TestHTTPServesBothProtocolsStatefulAndStateless(t *testing.T) {
	t.Parallel()
	for _, stateless := range []bool{false, true} {
		for _, proto := range protocols {
			name := proto + "/stateful"
			if stateless {
				name = proto + "/stateless"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				f := newFixture(t, "")
				ts := f.serveHTTP(t, server.HTTPOptions{Stateless: stateless})
				e := &elicitor{action: "accept", content: map[string]any{"decision": "once"}}
				cs, err := httpClient(t, ts.URL, proto, nil, &sdk.ClientOptions{ElicitationHandler: e.handle})
				if err != nil {
					t.Fatal(err)
				}
				if res, out := call(t, cs, "ping", map[string]any{"steps": 1}); res.IsError || out != "pong" {
					t.Errorf("ping: %v %q", res.IsError, out)
				}
				res, out := call(t, cs, "guarded", map[string]any{"path": "p"})
				// A stateless server cannot send requests on the legacy
				// protocol, so the rules decide; elsewhere the person does.
				if stateless && proto == protoLegacy {
					if !res.IsError || !strings.Contains(out, `"guarded"`) || e.count() != 0 {
						t.Errorf("guarded without elicitation: isError %v %q, asked %d", res.IsError, out, e.count())
					}
				} else if res.IsError || out != "guarded p" || e.count() != 1 {
					t.Errorf("guarded answered once: isError %v %q, asked %d", res.IsError, out, e.count())
				}
			})
		}
	}
}

func TestStatelessClientsKeepASessionThroughMeta(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "")
	ts := f.serveHTTP(t, server.HTTPOptions{Stateless: true})
	cs, err := httpClient(t, ts.URL, protoRoundTrip, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	meta := sdk.Meta{server.MetaSessionKey: "work"}
	todos := map[string]any{"todos": []map[string]any{{"content": "ship it", "status": "pending", "priority": "high"}}}
	if _, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Meta: meta, Name: "todowrite", Arguments: todos}); err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Meta: meta, Name: "todoread", Arguments: map[string]any{}})
	if err != nil || !strings.Contains(text(res), "ship it") {
		t.Errorf("todoread in session work: %v %q", err, text(res))
	}
}

func TestCheckBindRefusesTheNetworkWithoutAToken(t *testing.T) {
	t.Parallel()
	tests := []struct {
		addr, token string
		ok          bool
	}{
		{"127.0.0.1:8080", "", true},
		{"localhost:8080", "", true},
		{"[::1]:8080", "", true},
		{"0.0.0.0:8080", "", false},
		{"0.0.0.0:8080", "t", true},
		{"8080", "", false},
	}
	for _, tt := range tests {
		if err := server.CheckBind(tt.addr, tt.token); (err == nil) != tt.ok {
			t.Errorf("CheckBind(%q, %q) = %v, want ok %v", tt.addr, tt.token, err, tt.ok)
		}
	}
}

func TestTheBuiltBinaryServesHTTPBehindAToken(t *testing.T) {
	t.Parallel()
	p := newProject(t, "")
	p.write("b.txt", "served by the binary over http\n")
	cmd := p.command("mcp", "--http", "127.0.0.1:0")
	cmd.Env = append(cmd.Env, server.TokenEnv+"=from-env")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	// The first stderr line names the address (port 0 picks a free one).
	line, err := bufio.NewReader(stderr).ReadString('\n')
	url := strings.TrimSpace(strings.TrimPrefix(line, "toolhost: serving MCP on "))
	if err != nil || !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("first stderr line %q (%v)", line, err)
	}
	if got := post(t, url, nil); got != http.StatusUnauthorized {
		t.Errorf("without the token: status %d, want 401", got)
	}
	cs, err := httpClient(t, url, protoLegacy, map[string]string{"Authorization": "Bearer from-env"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res, out := call(t, cs, "read", map[string]any{"filePath": "b.txt"}); res.IsError || !strings.Contains(out, "served by the binary") {
		t.Errorf("read: %v %q", res.IsError, out)
	}
}

// A client's standing event stream (the GET of Streamable HTTP) must not
// hold the shutdown: ListenAndServe returns well before its grace period
// runs out, with the client still connected.
func TestShutdownEndsOpenStreamsAtOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.srv.ListenAndServe(ctx, ln, server.HTTPOptions{}) }()
	url := "http://" + ln.Addr().String()
	cs, err := httpClient(t, url, "2025-06-18", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.ListTools(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	openStream(t, url, cs.ID())
	shutsDownAtOnce(t, cancel, done, "an idle stream; it should end streams at once")
}

// openStream makes sure the server holds a standing event stream of the
// client's session: it opens one (a GET with its Mcp-Session-Id), or
// learns from 409 Conflict that the client's own is already open.
func openStream(t *testing.T, url, session string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", session)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode == http.StatusConflict {
		resp.Body.Close()
		return
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		t.Fatalf("GET stream: %s", resp.Status)
	}
	go func() {
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}()
}

// A connection that never sends a request (one an HTTP client dialled
// ahead and did not use) must not hold a shutdown: net/http counts it as
// busy for five seconds.
func TestShutdownClosesConnectionsThatSentNothing(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.srv.ListenAndServe(ctx, ln, server.HTTPOptions{}) }()
	spare, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer spare.Close()
	// The server has accepted it once a probe on another connection is
	// answered (one accept loop, in order).
	resp, err := http.Get("http://" + ln.Addr().String() + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	shutsDownAtOnce(t, cancel, done, "a connection that sent nothing; it should close it")
}

// shutsDownAtOnce ends ListenAndServe's context and checks that it
// returns, without error, before the shutdown grace for what it was left
// with (says what, and what it should have done).
func shutsDownAtOnce(t *testing.T, cancel context.CancelFunc, done <-chan error, what string) {
	t.Helper()
	start := time.Now()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("shutdown: %v", err)
		}
		if d := time.Since(start); d >= server.ShutdownGrace {
			t.Errorf("shutdown waited %v for %s", d, what)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ListenAndServe did not return after its context ended")
	}
}
