package server_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/mcp/server"
	"github.com/toolhost/toolhost/runtime/session"
)

// listenAndServe runs ListenAndServe on a loopback port until the returned
// stop is called; stop waits for it to return.
func listenAndServe(t *testing.T, f *fixture, opts server.HTTPOptions) (base string, stop func() error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.srv.ListenAndServe(ctx, ln, opts) }()
	var once bool
	var result error
	stop = func() error {
		if !once {
			once = true
			cancel()
			result = <-done
		}
		return result
	}
	t.Cleanup(func() { _ = stop() })
	return "http://" + ln.Addr().String(), stop
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestProbesAnswerWithoutTheTokenAndReadinessFollowsTheStore(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "")
	storeErr := errors.New("session store db:5432/toolhost: unavailable")
	var down bool
	base, _ := listenAndServe(t, f, server.HTTPOptions{Token: "s3cret", Ready: func(context.Context) error {
		if down {
			return storeErr
		}
		return nil
	}})
	if code, _ := get(t, base+"/healthz"); code != 200 {
		t.Errorf("/healthz = %d", code)
	}
	if code, _ := get(t, base+"/readyz"); code != 200 {
		t.Errorf("/readyz with the store up = %d", code)
	}
	down = true
	if code, body := get(t, base+"/readyz"); code != 503 || !strings.Contains(body, "unavailable") {
		t.Errorf("/readyz with the store down = %d %q; want 503 naming the cause", code, body)
	}
	// The MCP endpoint still wants the token.
	if code := post(t, base+"/", nil); code != http.StatusUnauthorized {
		t.Errorf("MCP without the token = %d, want 401", code)
	}
	// No metrics were asked for, so none are served.
	if code, _ := get(t, base+"/metrics"); code == 200 {
		t.Error("/metrics served without Metrics")
	}
}

func TestMetricsCountCallsPermissionDecisionsWasmPoolsAndTimeTheStore(t *testing.T) {
	t.Parallel()
	m := server.NewMetrics()
	store := m.Store(session.NewMemory())
	if _, ok := store.(session.Notifier); !ok {
		t.Error("the timed Memory store lost its Notifier")
	}
	if _, ok := m.Store(&session.Bolt{}).(session.Notifier); ok {
		t.Error("a timed Bolt store claims to notify")
	}
	f := newReplica(t, store, server.Options{Metrics: m})
	m.WatchPools(func() []server.PoolSize {
		return []server.PoolSize{{Module: "echo", Idle: 2, InUse: 1}}
	})
	base, _ := listenAndServe(t, f, server.HTTPOptions{Metrics: m})
	cs, err := httpClient(t, base+"/", protoLegacy, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	call(t, cs, "ping", map[string]any{"steps": 0})
	call(t, cs, "todowrite", map[string]any{"todos": []any{}})
	call(t, cs, "guarded", map[string]any{"path": "x"}) // asked of a client that cannot answer: the rules refuse it
	_, body := get(t, base+"/metrics")
	for _, want := range []string{
		`toolhost_tool_calls_total{outcome="ok",source="runtime",tool="ping"} 1`,
		`toolhost_tool_calls_total{outcome="ok",source="builtin",tool="todowrite"} 1`,
		`toolhost_tool_calls_total{outcome="denied",source="runtime",tool="guarded"} 1`,
		`toolhost_tool_call_duration_seconds_count{source="runtime",tool="ping"} 1`,
		`toolhost_session_store_duration_seconds_count{op="update",outcome="ok"}`,
		`toolhost_tool_calls_in_flight 0`,
		// Every permission decision, the rules' allows included.
		`toolhost_permission_decisions_total{outcome="allowed_by_rule",permission="todowrite"} 1`,
		`toolhost_permission_decisions_total{outcome="denied",permission="guarded"} 1`,
		`toolhost_wasm_instances{module="echo",state="idle"} 2`,
		`toolhost_wasm_instances{module="echo",state="in_use"} 1`,
		// Histograms in Prometheus' own buckets, labels first, le last.
		`toolhost_tool_call_duration_seconds_bucket{source="runtime",tool="ping",le="+Inf"} 1`,
		"# TYPE toolhost_tool_call_duration_seconds histogram\n",
		"# TYPE toolhost_tool_calls_total counter\n",
		"# HELP toolhost_tool_calls_in_flight Tool calls running now",
		// The Go runtime and the process beside them.
		"\ngo_goroutines ",
		"\nprocess_cpu_seconds_total ",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s in\n%s", want, grepLines(body, "toolhost_"))
		}
	}
}

func TestMetricsEscapeLabelValuesSoANameCannotForgeASeries(t *testing.T) {
	t.Parallel()
	m := server.NewMetrics()
	m.WatchPools(func() []server.PoolSize {
		return []server.PoolSize{{Module: "a\"} 9\nforged{x=\"\\", Idle: 1}}
	})
	var b strings.Builder
	m.WritePrometheus(&b)
	body := b.String()
	if want := `toolhost_wasm_instances{module="a\"} 9\nforged{x=\"\\",state="idle"} 1` + "\n"; !strings.Contains(body, want) {
		t.Errorf("the odd module name is not escaped: want %s in\n%s", want, grepLines(body, "toolhost_wasm"))
	}
	for _, l := range strings.Split(body, "\n") {
		if strings.HasPrefix(l, "forged") {
			t.Errorf("a module name wrote a line of its own: %q", l)
		}
	}
}

func grepLines(s, substr string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, substr) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

func TestDrainingStopsAcceptingAndReturnsOnceIdle(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "")
	// Stateless: no standing event stream, which a drain would wait out.
	base, stop := listenAndServe(t, f, server.HTTPOptions{Stateless: true, DrainTimeout: time.Minute})
	cs, err := httpClient(t, base+"/", protoLegacy, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, out := call(t, cs, "ping", map[string]any{"steps": 0}); out != "pong" {
		t.Fatalf("ping = %q", out)
	}
	if code, _ := get(t, base+"/readyz"); code != 200 {
		t.Fatalf("/readyz before draining = %d", code)
	}
	if err := stop(); err != nil {
		t.Fatalf("ListenAndServe after drain: %v", err)
	}
	if _, err := http.Get(base + "/healthz"); err == nil {
		t.Error("the server still accepts connections after draining")
	}
}
