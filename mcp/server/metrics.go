package server

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/permission"
	"github.com/toolhost/toolhost/runtime/session"
)

// Metrics are the Prometheus metrics of a server and its session store,
// served at /metrics by ListenAndServe. A Metrics value owns its own
// registry (no process-wide default), so two servers in one process — as
// in tests — count apart. github.com/prometheus/client_golang does the
// encoding; this file only names what is counted.
//
// Outcomes of a call: ok, error (the tool failed), and the permission
// decisions that end a call — denied (a rule), rejected and corrected (the
// person), unanswered (no one could be asked). Calls allowed by a rule or
// an answer count as ok or error, by how the tool then went. Every
// permission decision, allowing ones included, is counted apart in
// toolhost_permission_decisions_total (permission.Outcome).
type Metrics struct {
	reg         *prometheus.Registry
	calls       *prometheus.CounterVec
	duration    *prometheus.HistogramVec
	inFlight    prometheus.Gauge
	store       *prometheus.HistogramVec
	permissions *prometheus.CounterVec
}

// NewMetrics returns metrics registered on a registry of their own, with
// the Go runtime and process collectors beside them.
func NewMetrics() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "toolhost_tool_calls_total",
			Help: "Tool calls served, by tool, source (builtin, wasm, mcp, ...) and outcome (ok, error, denied, rejected, corrected, unanswered).",
		}, []string{"tool", "source", "outcome"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "toolhost_tool_call_duration_seconds",
			Help:    "Time from a tool call's start to its result, waits for a person included, by tool and source.",
			Buckets: prometheus.ExponentialBuckets(0.001, 4, 10), // 1 ms … 262 s
		}, []string{"tool", "source"}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "toolhost_tool_calls_in_flight",
			Help: "Tool calls running now, parked ones included.",
		}),
		store: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "toolhost_session_store_duration_seconds",
			Help:    "Session store operations, by operation (get, update, list, delete_session, notify) and outcome (ok, error).",
			Buckets: prometheus.ExponentialBuckets(0.0001, 4, 10), // 0.1 ms … 26 s
		}, []string{"op", "outcome"}),
		permissions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "toolhost_permission_decisions_total",
			Help: "Permission requests decided, by permission and outcome (allowed_by_rule, allowed_by_approval, allowed_by_grant, allowed_once, allowed_always, denied, rejected, corrected, unanswered, error).",
		}, []string{"permission", "outcome"}),
	}
	m.reg.MustRegister(m.calls, m.duration, m.inFlight, m.store, m.permissions,
		prometheus.NewGoCollector(), prometheus.NewProcessCollector(prometheus.ProcessCollectorOpts{}))
	return m
}

// Handler serves the metrics in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// Registry is where the metrics are registered, for a program that adds
// its own.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// begin counts a call in flight and returns the function that records how
// it ended. A nil Metrics records nothing.
func (m *Metrics) begin(reg *runtime.Registry, tool string) func(err error) {
	if m == nil {
		return func(error) {}
	}
	src, _ := reg.Source(tool)
	start := time.Now()
	m.inFlight.Inc()
	return func(err error) {
		m.inFlight.Dec()
		outcome := "ok"
		if err != nil {
			outcome = string(permission.Kind(err))
			if outcome == "" {
				outcome = "error"
			}
		}
		m.calls.WithLabelValues(tool, string(src), outcome).Inc()
		m.duration.WithLabelValues(tool, string(src)).Observe(time.Since(start).Seconds())
	}
}

// permission counts one permission decision; it is the Observer the
// server gives its registry's permission service.
func (m *Metrics) permission(perm string, outcome permission.Outcome) {
	m.permissions.WithLabelValues(perm, string(outcome)).Inc()
}

// PoolSize is one wasm module's instances: idle in its pool and in use by
// calls now (plugins.PoolSize, copied by the program that has both).
type PoolSize struct {
	Module      string
	Idle, InUse int
}

// WatchPools exports the sizes pools reports, read at each scrape, as
// toolhost_wasm_instances{module, state="idle"|"in_use"}. Call it once.
func (m *Metrics) WatchPools(pools func() []PoolSize) {
	m.reg.MustRegister(poolCollector{pools})
}

var poolDesc = prometheus.NewDesc("toolhost_wasm_instances",
	"Instances of a wasm module, by module and state: idle (pooled, ready for a call) or in_use (running a call or hook).",
	[]string{"module", "state"}, nil)

// poolCollector reads the pools when scraped, so the gauges are never
// stale and nothing is updated on the call path.
type poolCollector struct{ pools func() []PoolSize }

func (c poolCollector) Describe(ch chan<- *prometheus.Desc) { ch <- poolDesc }

func (c poolCollector) Collect(ch chan<- prometheus.Metric) {
	for _, p := range c.pools() {
		ch <- prometheus.MustNewConstMetric(poolDesc, prometheus.GaugeValue, float64(p.Idle), p.Module, "idle")
		ch <- prometheus.MustNewConstMetric(poolDesc, prometheus.GaugeValue, float64(p.InUse), p.Module, "in_use")
	}
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
	t.m.store.WithLabelValues(op, outcome).Observe(time.Since(start).Seconds())
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
