package server_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sdk "github.com/toolhost/toolhost/internal/third_party/gosdk/mcp"

	"github.com/toolhost/toolhost/mcp/server"
	"github.com/toolhost/toolhost/runtime/session"
)

// scrape reads m as Prometheus would.
func scrape(t *testing.T, m *server.Metrics) string {
	t.Helper()
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	return rec.Body.String()
}

func wantMetrics(t *testing.T, body string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(body, w+"\n") {
			t.Errorf("/metrics lacks %s in\n%s", w, grepLines(body, "toolhost_"))
		}
	}
}

func TestAReplicaAtItsParkedLimitRefusesTheNextQuestionAndSaysWhy(t *testing.T) {
	t.Parallel()
	m := server.NewMetrics()
	f := newReplica(t, m.Store(session.NewMemory()), server.Options{Metrics: m, MaxParked: 1})
	base, _ := listenAndServe(t, f, server.HTTPOptions{Metrics: m})
	first := newRoundTrip(t, f).ask(t)

	res, err := newRoundTrip(t, f).cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "guarded", Arguments: map[string]any{"path": "y"}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || res.NeedsInput() || !strings.Contains(text(res), "already holds 1 calls waiting") || !strings.Contains(text(res), "--max-parked") {
		t.Fatalf("a question past the limit = %+v (%s); want a refusal naming the limit", res, text(res))
	}
	_, body := get(t, base+"/metrics")
	wantMetrics(t, body, `toolhost_parked_calls 1`, `toolhost_parked_calls_refused_total 1`)

	// The call within the limit is still answerable.
	res = newRoundTrip(t, f).answer(t, first, decision("once"))
	if res.IsError || text(res) != "guarded x" {
		t.Fatalf("the parked call after the refusal = %s", text(res))
	}
	_, body = get(t, base+"/metrics")
	wantMetrics(t, body, `toolhost_parked_calls 0`)
}

func TestRelayedAnswersAndAcknowledgementTimeoutsAreCounted(t *testing.T) {
	t.Parallel()
	store := session.NewMemory()
	ma, mb := server.NewMetrics(), server.NewMetrics()
	a := newReplica(t, store, server.Options{Metrics: ma})
	b := newReplica(t, store, server.Options{Metrics: mb})
	asked := newRoundTrip(t, a).ask(t)
	if res := newRoundTrip(t, b).answer(t, asked, decision("once")); res.IsError {
		t.Fatalf("relayed answer: %s", text(res))
	}
	forged := *newRoundTrip(t, a).ask(t)
	forged.RequestState = "tcall_00000000000000000000000000000000"
	if res := newRoundTrip(t, b).answer(t, &forged, decision("once")); !res.IsError {
		t.Fatalf("an answer no replica takes = %s; want the call-expired error", text(res))
	}
	wantMetrics(t, scrape(t, mb),
		`toolhost_relayed_answers_total{outcome="answered"} 1`,
		`toolhost_relayed_answers_total{outcome="ack_timeout"} 1`,
		`toolhost_relayed_answers_total{outcome="store_error"} 0`,
		`toolhost_relayed_answers_taken_total 0`)
	wantMetrics(t, scrape(t, ma),
		`toolhost_relayed_answers_taken_total 1`,
		`toolhost_relayed_answers_total{outcome="answered"} 0`)
}

func TestTheStorePoolIsReadAtEachScrape(t *testing.T) {
	t.Parallel()
	m := server.NewMetrics()
	inUse := int32(1)
	m.WatchStorePool(func() server.StorePool {
		return server.StorePool{Max: 8, Total: 3, Acquired: inUse, Idle: 3 - inUse, Acquires: 40, EmptyAcquires: 2, AcquireWait: 1500 * time.Millisecond}
	})
	wantMetrics(t, scrape(t, m),
		`toolhost_session_store_connections{state="max"} 8`,
		`toolhost_session_store_connections{state="in_use"} 1`,
		`toolhost_session_store_acquires_total 40`,
		`toolhost_session_store_acquires_waited_total 2`,
		`toolhost_session_store_acquire_wait_seconds_total 1.5`)
	inUse = 3
	wantMetrics(t, scrape(t, m), `toolhost_session_store_connections{state="in_use"} 3`, `toolhost_session_store_connections{state="idle"} 0`)
}

// TestADrainDelayKeepsServingWhileNotReady is what a Kubernetes rollout
// needs: endpoints still point at the pod for a moment after SIGTERM.
func TestADrainDelayKeepsServingWhileNotReady(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "")
	// Long enough for a client to connect and call within it on a
	// loaded 2-core CI machine (1.5 s was close).
	const delay = 3 * time.Second
	base, stop := listenAndServe(t, f, server.HTTPOptions{Stateless: true, DrainDelay: delay})
	stopped := make(chan time.Time, 1)
	start := time.Now()
	go func() { _ = stop(); stopped <- time.Now() }()
	// Wait for readiness to turn.
	for {
		if code, _ := get(t, base+"/readyz"); code == http.StatusServiceUnavailable {
			break
		}
		if time.Since(start) > delay {
			t.Fatal("/readyz did not turn 503 within the drain delay")
		}
		time.Sleep(10 * time.Millisecond)
	}
	// Not ready, yet a new connection is still served.
	cs, err := httpClient(t, base+"/", protoLegacy, nil, nil)
	if err != nil {
		t.Fatalf("a client connecting during the drain delay: %v", err)
	}
	if _, out := call(t, cs, "ping", map[string]any{"steps": 0}); out != "pong" {
		t.Fatalf("ping during the drain delay = %q", out)
	}
	end := <-stopped
	if took := end.Sub(start); took < delay {
		t.Errorf("ListenAndServe returned %s after its context ended; want at least the %s delay", took, delay)
	}
	if _, err := http.Get(base + "/healthz"); err == nil {
		t.Error("the server still accepts connections after draining")
	}
}
