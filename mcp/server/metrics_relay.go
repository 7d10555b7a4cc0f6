package server

import (
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/VictoriaMetrics/metrics"
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
	sent, taken, parkRefused *metrics.Set
	takenC, parkRefusedC     *metrics.Counter
	parked                   atomic.Pointer[func() int]
	pool                     atomic.Pointer[func() StorePool]
}

func newRelayMetrics(m *Metrics) *relayMetrics {
	r := &relayMetrics{sent: metrics.NewSet(), taken: metrics.NewSet(), parkRefused: metrics.NewSet()}
	// Every outcome from zero, so a rate over them exists before the
	// first one happens.
	for _, o := range []string{outcomeAnswered, outcomeReleased, outcomeAckTimeout, outcomeCancelled, outcomeStoreError} {
		r.sent.GetOrCreateCounter(series("toolhost_relayed_answers_total", "outcome", o))
	}
	r.takenC = r.taken.NewCounter("toolhost_relayed_answers_taken_total")
	r.parkRefusedC = r.parkRefused.NewCounter("toolhost_parked_calls_refused_total")
	m.families = append(m.families,
		family{"toolhost_relayed_answers_total", "counter", "Answers this replica received for a call parked on another and passed on through the session store, by outcome (answered, released, ack_timeout, cancelled, store_error).", r.sent},
		family{"toolhost_relayed_answers_taken_total", "counter", "Answers another replica passed on that this replica took for a call parked here.", r.taken},
		family{"toolhost_parked_calls_refused_total", "counter", "Calls ended because they asked for a permission answer while this replica held its limit of parked calls (--max-parked).", r.parkRefused},
	)
	return r
}

// relayed counts an answer passed on; a nil Metrics counts nothing.
func (m *Metrics) relayed(outcome string) {
	if m != nil {
		m.relay.sent.GetOrCreateCounter(series("toolhost_relayed_answers_total", "outcome", outcome)).Inc()
	}
}

func (m *Metrics) relayTaken() {
	if m != nil {
		m.relay.takenC.Inc()
	}
}

func (m *Metrics) parkRefused() {
	if m != nil {
		m.relay.parkRefusedC.Inc()
	}
}

// watchParked exports count as toolhost_parked_calls, read at each scrape.
// A second server on the same Metrics keeps the first one's gauge.
func (m *Metrics) watchParked(count func() int) {
	m.relay.parked.CompareAndSwap(nil, &count)
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
// toolhost_session_store_acquire_wait_seconds_total. A later call
// replaces what an earlier one watched.
func (m *Metrics) WatchStorePool(pool func() StorePool) {
	m.relay.pool.Store(&pool)
}

// write writes the gauges read at each scrape: the parked calls and the
// store's pool, each family whole.
func (r *relayMetrics) write(w io.Writer) {
	if count := r.parked.Load(); count != nil {
		fmt.Fprintf(w, "# HELP toolhost_parked_calls Calls parked on this replica waiting for a permission answer.\n# TYPE toolhost_parked_calls gauge\ntoolhost_parked_calls %d\n", (*count)())
	}
	pool := r.pool.Load()
	if pool == nil {
		return
	}
	p := (*pool)()
	fmt.Fprintf(w, "# HELP toolhost_session_store_connections Connections of the session store's pool, by state: max (the pool's size, pool_max_conns), open, in_use (by a call) and idle.\n# TYPE toolhost_session_store_connections gauge\n")
	for _, s := range []struct {
		state string
		n     int32
	}{{"max", p.Max}, {"open", p.Total}, {"in_use", p.Acquired}, {"idle", p.Idle}} {
		fmt.Fprintf(w, "%s %d\n", series("toolhost_session_store_connections", "state", s.state), s.n)
	}
	fmt.Fprintf(w, "# HELP toolhost_session_store_acquires_total Connections handed out by the session store's pool.\n# TYPE toolhost_session_store_acquires_total counter\ntoolhost_session_store_acquires_total %d\n", p.Acquires)
	fmt.Fprintf(w, "# HELP toolhost_session_store_acquires_waited_total Connections handed out only after waiting, every one of the pool's being in use: raise pool_max_conns (or the database's limits) when it grows.\n# TYPE toolhost_session_store_acquires_waited_total counter\ntoolhost_session_store_acquires_waited_total %d\n", p.EmptyAcquires)
	fmt.Fprintf(w, "# HELP toolhost_session_store_acquire_wait_seconds_total Time spent waiting for a connection of the session store's pool, summed.\n# TYPE toolhost_session_store_acquire_wait_seconds_total counter\ntoolhost_session_store_acquire_wait_seconds_total %g\n", p.AcquireWait.Seconds())
}
