package pgstore

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// Retention. Session state is written by many replicas and read by any, so
// no replica knows when a session has ended; the store forgets a session
// once nothing in it has been written for Options.Retention. Every replica
// sweeps on its own timer, but the sweep runs only under a
// transaction-scoped advisory lock taken with pg_try_advisory_xact_lock: a
// replica that finds it held skips that round, so replicas never delete
// the same rows at once nor queue behind each other. Each statement deletes
// at most sweepBatch sessions (or rows), and a sweep repeats its
// statements until they delete nothing, so no transaction holds many row
// locks or runs for long.
//
// What a statement deletes is data (sweepStatements): a store that keeps
// more tables adds a line. Reading a value does not count as activity —
// updated_at changes only on writes — but a session in use writes its
// read stamps on every read, so an active session is never idle long.
//
// Rows of process bookkeeping — the MCP server's parked-call relay, one
// session id shared by every call — would keep their session always
// active; SweepRowsOf names such sessions, whose rows expire one by one.

// sweepLock is the advisory lock of the retention sweep: "toolswep".
const sweepLock int64 = 0x746f6f6c73776570

// sweepBatch bounds the sessions (or rows) one statement deletes.
const sweepBatch = 5000

// sweepStatement deletes expired state: $1 is the cutoff (rows written
// before it are expired), $2 the batch size, $3 the sessions whose rows
// expire one by one.
type sweepStatement struct {
	what string
	sql  string
}

var sweepStatements = []sweepStatement{
	{"idle sessions", `
		WITH idle AS (
			SELECT session FROM toolhost_session_state
			WHERE session <> ALL($3::bytea[])
			GROUP BY session
			HAVING max(updated_at) < $1
			LIMIT $2)
		DELETE FROM toolhost_session_state t USING idle WHERE t.session = idle.session`},
	{"expired bookkeeping rows", `
		DELETE FROM toolhost_session_state WHERE ctid = ANY(ARRAY(
			SELECT ctid FROM toolhost_session_state
			WHERE session = ANY($3::bytea[]) AND updated_at < $1
			LIMIT $2))`},
}

// sweeper runs the sweep on a timer until stopped.
type sweeper struct {
	mu      sync.Mutex
	rows    [][]byte // SweepRowsOf's sessions
	cancel  context.CancelFunc
	done    chan struct{}
	stopped bool
}

// SweepRowsOf makes the rows of these sessions expire one by one, each
// Retention after its own last write, rather than with their session.
// For process bookkeeping shared by every call; see sweep.go.
func (s *Store) SweepRowsOf(sessions ...string) {
	s.sweep.mu.Lock()
	defer s.sweep.mu.Unlock()
	for _, id := range sessions {
		if !slices.ContainsFunc(s.sweep.rows, func(b []byte) bool { return string(b) == id }) {
			s.sweep.rows = append(s.sweep.rows, b(id))
		}
	}
}

func (w *sweeper) rowSessions() [][]byte {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([][]byte{}, w.rows...)
}

func (w *sweeper) start(s *Store, retention, every time.Duration) {
	if every <= 0 {
		every = min(retention/4, 10*time.Minute)
	}
	every = max(every, time.Second)
	ctx, cancel := context.WithCancel(context.Background())
	w.mu.Lock()
	w.cancel, w.done = cancel, make(chan struct{})
	w.mu.Unlock()
	go func() {
		defer close(w.done)
		for {
			// Jitter spreads replicas started together over the period.
			wait := every/2 + rand.N(every/2+1)
			select {
			case <-ctx.Done():
				return
			case <-time.After(wait):
			}
			_, _ = s.Sweep(ctx, retention) // an outage is reported by the calls themselves
		}
	}()
}

func (w *sweeper) stop() {
	w.mu.Lock()
	cancel, done := w.cancel, w.done
	w.cancel = nil
	w.mu.Unlock()
	if cancel != nil {
		cancel()
		<-done
	}
}

// Sweep deletes what has had no write for olderThan: whole sessions, and
// the rows of SweepRowsOf's sessions one by one. It returns the rows
// deleted; when another replica is sweeping it returns 0 at once. The
// store's timer calls it when Options.Retention is set; a program may call
// it itself.
func (s *Store) Sweep(ctx context.Context, olderThan time.Duration) (int64, error) {
	if olderThan <= 0 {
		return 0, fmt.Errorf("session store: sweep with a retention of %s; want a positive duration", olderThan)
	}
	if err := s.enter(ctx); err != nil {
		return 0, err
	}
	defer s.gate.RUnlock()
	rows := s.sweep.rowSessions()
	var total int64
	for {
		var n int64
		var busy bool
		err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
			if err := tx.QueryRow(ctx, `SELECT pg_try_advisory_xact_lock($1)`, sweepLock).Scan(&busy); err != nil {
				return err
			}
			busy = !busy
			if busy {
				return nil
			}
			// The database's clock, not this replica's, says what is old.
			var cutoff time.Time
			if err := tx.QueryRow(ctx, `SELECT now() - make_interval(secs => $1)`, olderThan.Seconds()).Scan(&cutoff); err != nil {
				return err
			}
			for _, st := range sweepStatements {
				tag, err := tx.Exec(ctx, st.sql, cutoff, sweepBatch, rows)
				if err != nil {
					return fmt.Errorf("%s: %w", st.what, err)
				}
				n += tag.RowsAffected()
			}
			return nil
		})
		if err != nil {
			return total, s.wrap("sweep", err)
		}
		total += n
		if busy || n == 0 {
			return total, nil
		}
	}
}
