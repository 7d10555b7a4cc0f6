package server

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// The metrics of running as one of several replicas: answers relayed to
// the replica holding their call (relay.go), how those ended —
// acknowledgement timeouts among them — the calls parked here and those
// refused at the limit (limits.go), and the session store's connection
// pool.

// Outcomes of an answer this replica passed to another
// (toolhost_relayed_answers_total).
const (
	outcomeAnswered   = "answered"    // the holding replica took it and sent back the round
	outcomeReleased   = "released"    // the call had been released by a drain; the answer was recorded
	outcomeAckTimeout = "ack_timeout" // no replica took it within the acknowledgement timeout
	outcomeCancelled  = "cancelled"   // the client gave up first
	outcomeStoreError = "store_error" // it could not be stored or notified
)

type relayMetrics struct {
	sent        *prometheus.CounterVec
	taken       prometheus.Counter
	parkRefused prometheus.Counter
}

func newRelayMetrics(reg *prometheus.Registry) relayMetrics {
	r := relayMetrics{
		sent: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "toolhost_relayed_answers_total",
			Help: "Answers this replica received for a call parked on another and passed on through the session store, by outcome (answered, released, ack_timeout, cancelled, store_error).",
		}, []string{"outcome"}),
		taken: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "toolhost_relayed_answers_taken_total",
			Help: "Answers another replica passed on that this replica took for a call parked here.",
		}),
		parkRefused: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "toolhost_parked_calls_refused_total",
			Help: "Calls ended because they asked for a permission answer while this replica held its limit of parked calls (--max-parked).",
		}),
	}
	// Every outcome from zero, so a rate over them exists before the
	// first one happens.
	for _, o := range []string{outcomeAnswered, outcomeReleased, outcomeAckTimeout, outcomeCancelled, outcomeStoreError} {
		r.sent.WithLabelValues(o)
	}
	reg.MustRegister(r.sent, r.taken, r.parkRefused)
	return r
}

// relayed counts an answer passed on; a nil Metrics counts nothing.
func (m *Metrics) relayed(outcome string) {
	if m != nil {
		m.relay.sent.WithLabelValues(outcome).Inc()
	}
}

func (m *Metrics) relayTaken() {
	if m != nil {
		m.relay.taken.Inc()
	}
}

func (m *Metrics) parkRefused() {
	if m != nil {
		m.relay.parkRefused.Inc()
	}
}

// watchParked exports count as toolhost_parked_calls, read at each scrape.
// A second server on the same Metrics keeps the first one's gauge.
func (m *Metrics) watchParked(count func() int) {
	_ = m.reg.Register(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "toolhost_parked_calls",
		Help: "Calls parked on this replica waiting for a permission answer.",
	}, func() float64 { return float64(count()) }))
}

// StorePool is the session store's connection pool now
// (pgstore.PoolStat, copied by the program that has both).
type StorePool struct {
	Max, Total, Acquired, Idle int32
	Acquires, EmptyAcquires    int64
	AcquireWait                time.Duration
}

// WatchStorePool exports the pool pool reports, read at each scrape:
// toolhost_session_store_connections{state="max"|"open"|"in_use"|"idle"},
// toolhost_session_store_acquires_total,
// toolhost_session_store_acquires_waited_total and
// toolhost_session_store_acquire_wait_seconds_total. Call it once.
func (m *Metrics) WatchStorePool(pool func() StorePool) {
	m.reg.MustRegister(storePoolCollector{pool})
}

var (
	storeConnsDesc = prometheus.NewDesc("toolhost_session_store_connections",
		"Connections of the session store's pool, by state: max (the pool's size, pool_max_conns), open, in_use (by a call) and idle.",
		[]string{"state"}, nil)
	storeAcquiresDesc = prometheus.NewDesc("toolhost_session_store_acquires_total",
		"Connections handed out by the session store's pool.", nil, nil)
	storeWaitedDesc = prometheus.NewDesc("toolhost_session_store_acquires_waited_total",
		"Connections handed out only after waiting, every one of the pool's being in use: raise pool_max_conns (or the database's limits) when it grows.", nil, nil)
	storeWaitDesc = prometheus.NewDesc("toolhost_session_store_acquire_wait_seconds_total",
		"Time spent waiting for a connection of the session store's pool, summed.", nil, nil)
)

type storePoolCollector struct{ pool func() StorePool }

func (c storePoolCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- storeConnsDesc
	ch <- storeAcquiresDesc
	ch <- storeWaitedDesc
	ch <- storeWaitDesc
}

func (c storePoolCollector) Collect(ch chan<- prometheus.Metric) {
	p := c.pool()
	for _, s := range []struct {
		state string
		n     int32
	}{{"max", p.Max}, {"open", p.Total}, {"in_use", p.Acquired}, {"idle", p.Idle}} {
		ch <- prometheus.MustNewConstMetric(storeConnsDesc, prometheus.GaugeValue, float64(s.n), s.state)
	}
	ch <- prometheus.MustNewConstMetric(storeAcquiresDesc, prometheus.CounterValue, float64(p.Acquires))
	ch <- prometheus.MustNewConstMetric(storeWaitedDesc, prometheus.CounterValue, float64(p.EmptyAcquires))
	ch <- prometheus.MustNewConstMetric(storeWaitDesc, prometheus.CounterValue, p.AcquireWait.Seconds())
}
