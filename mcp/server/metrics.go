package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/permission"
	"github.com/toolhost/toolhost/runtime/session"
)

// Metrics are the Prometheus metrics of a server and its session store,
// served at /metrics by ListenAndServe in the Prometheus text format. A
// Metrics value owns its own sets (no process-wide default), so two
// servers in one process — as in tests — count apart.
// github.com/VictoriaMetrics/metrics does the counting and the encoding
// (it replaced github.com/prometheus/client_golang, which brought
// protobuf into every build for a format /metrics never serves); this
// file only names what is counted.
//
// Outcomes of a call: ok, error (the tool failed), and the permission
// decisions that end a call — denied (a rule), rejected and corrected (the
// person), unanswered (no one could be asked). Calls allowed by a rule or
// an answer count as ok or error, by how the tool then went. Every
// permission decision, allowing ones included, is counted apart in
// toolhost_permission_decisions_total (permission.Outcome).
type Metrics struct {
	families                                      []family
	calls, duration, inFlight, store, permissions *metrics.Set
	inFlightGauge                                 *metrics.Gauge
	pools                                         atomic.Pointer[func() []PoolSize]
	extra                                         *metrics.Set
	relay                                         *relayMetrics // metrics_relay.go
}

// family is one metric family: its HELP and TYPE lines, then the set
// holding its series, so each family is written whole in one place.
type family struct {
	name, typ, help string
	set             *metrics.Set
}

// Buckets of the duration histograms: powers of 4 from 1 ms to 262 s for
// calls (waits for a person included), from 0.1 ms to 26 s for the store.
var (
	callBuckets  = exponential(0.001, 4, 10)
	storeBuckets = exponential(0.0001, 4, 10)
)

func exponential(start, factor float64, n int) []float64 {
	b := make([]float64, n)
	for i := range b {
		b[i] = start
		start *= factor
	}
	return b
}

// NewMetrics returns metrics on sets of their own, with the Go runtime
// and process metrics beside them.
func NewMetrics() *Metrics {
	m := &Metrics{
		calls: metrics.NewSet(), duration: metrics.NewSet(), inFlight: metrics.NewSet(),
		store: metrics.NewSet(), permissions: metrics.NewSet(), extra: metrics.NewSet(),
	}
	m.inFlightGauge = m.inFlight.NewGauge("toolhost_tool_calls_in_flight", nil)
	m.families = []family{
		{"toolhost_tool_calls_total", "counter", "Tool calls served, by tool, source (builtin, wasm, mcp, ...) and outcome (ok, error, denied, rejected, corrected, unanswered).", m.calls},
		{"toolhost_tool_call_duration_seconds", "histogram", "Time from a tool call's start to its result, waits for a person included, by tool and source.", m.duration},
		{"toolhost_tool_calls_in_flight", "gauge", "Tool calls running now, parked ones included.", m.inFlight},
		{"toolhost_session_store_duration_seconds", "histogram", "Session store operations, by operation (get, update, list, delete_session, notify) and outcome (ok, error).", m.store},
		{"toolhost_permission_decisions_total", "counter", "Permission requests decided, by permission and outcome (allowed_by_rule, allowed_by_approval, allowed_by_grant, allowed_once, allowed_always, denied, rejected, corrected, unanswered, error).", m.permissions},
	}
	m.relay = newRelayMetrics(m)
	return m
}

// series names a series of a family: name{k1="v1",k2="v2"}, the labels
// given in the order Prometheus sorts them, each value escaped as the text
// format asks (backslash, double quote and newline), so a tool or module
// name cannot break the exposition.
func series(name string, kv ...string) string {
	var b strings.Builder
	b.WriteString(name)
	b.WriteByte('{')
	for i := 0; i+1 < len(kv); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(kv[i])
		b.WriteString(`="`)
		b.WriteString(labelEscaper.Replace(kv[i+1]))
		b.WriteByte('"')
	}
	b.WriteByte('}')
	return b.String()
}

var labelEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)

// Handler serves the metrics in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		m.WritePrometheus(w)
	})
}

// WritePrometheus writes every metric in the Prometheus text format: the
// server's families, the wasm pools read now, the program's own (Set),
// then the Go runtime and process metrics.
func (m *Metrics) WritePrometheus(w io.Writer) {
	for _, f := range m.families {
		fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s %s\n", f.name, f.help, f.name, f.typ)
		f.set.WritePrometheus(w)
	}
	if pools := m.pools.Load(); pools != nil {
		fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s gauge\n", poolsName, poolsHelp, poolsName)
		for _, p := range (*pools)() {
			fmt.Fprintf(w, "%s %d\n", series(poolsName, "module", p.Module, "state", "idle"), p.Idle)
			fmt.Fprintf(w, "%s %d\n", series(poolsName, "module", p.Module, "state", "in_use"), p.InUse)
		}
	}
	m.relay.write(w)
	m.extra.WritePrometheus(w)
	metrics.WriteProcessMetrics(w)
}

// Set is where a program adds metrics of its own, served after the
// server's.
func (m *Metrics) Set() *metrics.Set { return m.extra }

// begin counts a call in flight and returns the function that records how
// it ended. A nil Metrics records nothing.
func (m *Metrics) begin(reg *runtime.Registry, tool string) func(err error) {
	if m == nil {
		return func(error) {}
	}
	src, _ := reg.Source(tool)
	start := time.Now()
	m.inFlightGauge.Inc()
	return func(err error) {
		m.inFlightGauge.Dec()
		outcome := "ok"
		if err != nil {
			outcome = string(permission.Kind(err))
			if outcome == "" {
				outcome = "error"
			}
		}
		m.calls.GetOrCreateCounter(series("toolhost_tool_calls_total", "outcome", outcome, "source", string(src), "tool", tool)).Inc()
		m.duration.GetOrCreatePrometheusHistogramExt(series("toolhost_tool_call_duration_seconds", "source", string(src), "tool", tool), callBuckets).UpdateDuration(start)
	}
}

// permission counts one permission decision; it is the Observer the
// server gives its registry's permission service.
func (m *Metrics) permission(perm string, outcome permission.Outcome) {
	m.permissions.GetOrCreateCounter(series("toolhost_permission_decisions_total", "outcome", string(outcome), "permission", perm)).Inc()
}

// PoolSize is one wasm module's instances: idle in its pool and in use by
// calls now (wasm.PoolSize, copied by the program that has both).
type PoolSize struct {
	Module      string
	Idle, InUse int
}

const (
	poolsName = "toolhost_wasm_instances"
	poolsHelp = "Instances of a wasm module, by module and state: idle (pooled, ready for a call) or in_use (running a call or hook)."
)

// WatchPools exports the sizes pools reports, read at each scrape (so the
// gauges are never stale and nothing is updated on the call path), as
// toolhost_wasm_instances{module, state="idle"|"in_use"}. A later call
// replaces what an earlier one watched.
func (m *Metrics) WatchPools(pools func() []PoolSize) {
	m.pools.Store(&pools)
}

// Store returns s with every operation timed into the metrics. Its
// optional abilities stay what they were: the result is a session.Notifier
// exactly when s is, and a session.Pinger always (one that cannot fail
// when s has no Ping).
func (m *Metrics) Store(s session.Store) session.Store {
	t := &timedStore{Store: s, m: m}
	if n, ok := s.(session.Notifier); ok {
		return &timedNotifier{timedStore: t, n: n}
	}
	return t
}

// timedNotifier is a timedStore over a store that notifies.
type timedNotifier struct {
	*timedStore
	n session.Notifier
}

// Notify implements session.Notifier.
func (t *timedNotifier) Notify(ctx context.Context, channel, payload string) error {
	start := time.Now()
	err := t.n.Notify(ctx, channel, payload)
	t.observe("notify", start, err)
	return err
}

// Listen implements session.Notifier.
func (t *timedNotifier) Listen(ctx context.Context, channel string, fn func(string)) error {
	return t.n.Listen(ctx, channel, fn)
}

type timedStore struct {
	session.Store
	m *Metrics
}

func (t *timedStore) observe(op string, start time.Time, err error) {
	outcome := "ok"
	if err != nil && !errors.Is(err, context.Canceled) {
		outcome = "error"
	}
	t.m.store.GetOrCreatePrometheusHistogramExt(series("toolhost_session_store_duration_seconds", "op", op, "outcome", outcome), storeBuckets).UpdateDuration(start)
}

func (t *timedStore) Get(ctx context.Context, sid, ns, key string) ([]byte, bool, error) {
	start := time.Now()
	v, ok, err := t.Store.Get(ctx, sid, ns, key)
	t.observe("get", start, err)
	return v, ok, err
}

func (t *timedStore) Update(ctx context.Context, sid, ns, key string, fn func([]byte, bool) ([]byte, error)) error {
	start := time.Now()
	err := t.Store.Update(ctx, sid, ns, key, fn)
	t.observe("update", start, err)
	return err
}

func (t *timedStore) List(ctx context.Context, sid, ns string) ([]session.KV, error) {
	start := time.Now()
	kvs, err := t.Store.List(ctx, sid, ns)
	t.observe("list", start, err)
	return kvs, err
}

func (t *timedStore) DeleteSession(ctx context.Context, sid string) error {
	start := time.Now()
	err := t.Store.DeleteSession(ctx, sid)
	t.observe("delete_session", start, err)
	return err
}

// Ping passes through to the store's Pinger; a store without one is
// always reachable.
func (t *timedStore) Ping(ctx context.Context) error {
	if p, ok := t.Store.(session.Pinger); ok {
		return p.Ping(ctx)
	}
	return nil
}
