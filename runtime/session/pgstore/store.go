package pgstore

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/toolhost/toolhost/runtime/session"
)

// Store is a session.Store in a PostgreSQL database. It is safe for
// concurrent use by many goroutines, processes and machines sharing the
// database.
type Store struct {
	pool *pgxpool.Pool
	addr string // host:port/database, for messages; never the password

	// gate is held shared by every operation and exclusively by Close, so
	// Close waits for operations in flight and none starts after it.
	gate   sync.RWMutex
	closed bool

	listen listener // LISTEN/NOTIFY (notify.go)
	sweep  sweeper  // retention (sweep.go)
}

var (
	_ session.Store    = (*Store)(nil)
	_ session.Notifier = (*Store)(nil)
	_ session.Pinger   = (*Store)(nil)
)

// maxNameBytes bounds session id, namespace and key together: the primary
// key's btree entry must fit in a third of a page. The contract's 1 KiB key
// leaves ids and namespaces ample room.
const maxNameBytes = 2400

// Addr is host:port/database, for logs and messages.
func (s *Store) Addr() string { return s.addr }

// Close waits for operations in flight and closes the pool and listener.
// Later calls return an error wrapping session.ErrClosed; Close itself may
// be called again.
func (s *Store) Close() error {
	s.gate.Lock()
	defer s.gate.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	s.sweep.stop()
	s.listen.close()
	s.pool.Close()
	return nil
}

// enter starts an operation: it refuses a cancelled context and a closed
// store; the caller calls s.gate.RUnlock when done.
func (s *Store) enter(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("session store: %w", err)
	}
	s.gate.RLock()
	if s.closed {
		s.gate.RUnlock()
		return fmt.Errorf("session store: %w", session.ErrClosed)
	}
	return nil
}

// ErrUnavailable is wrapped by the errors of operations that could not
// reach the database. Callers tell it apart from a refused request to say
// "try again" rather than "fix the call".
var ErrUnavailable = errors.New("session store database unavailable")

// wrap gives an error the store's address and, when the database could
// not be reached, a remedy.
func (s *Store) wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("session store %s: %s: %w", s.addr, op, err)
	}
	if unreachable(err) {
		return fmt.Errorf("session store %s: %s: %w: %w; check that PostgreSQL is running and reachable (toolhost reconnects by itself)", s.addr, op, ErrUnavailable, err)
	}
	return fmt.Errorf("session store %s: %s: %w", s.addr, op, err)
}

// unreachable tells a database that could not be reached (no answer, a
// connection lost, a server shutting down or starting) from one that
// refused a statement or a login.
func unreachable(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var pgErr *pgconn.PgError
	return !errors.As(err, &pgErr) || isShutdown(pgErr)
}

// isShutdown tells the errors a server sends while it shuts down or starts
// (class 57P: operator intervention; 08: connection exceptions) from the
// errors of a statement.
func isShutdown(e *pgconn.PgError) bool {
	return e.Code == "57P01" || e.Code == "57P02" || e.Code == "57P03" || e.Code[:2] == "08"
}

func checkIDs(sessionID, ns, key string) error {
	if sessionID == "" {
		return errors.New("session store: empty session id; pass the id of the session the state belongs to")
	}
	if ns == "" {
		return errors.New("session store: empty namespace; name the kind of state (\"todo\", \"filetime\", ...)")
	}
	if n := len(sessionID) + len(ns) + len(key); n > maxNameBytes {
		return fmt.Errorf("session store: session id, namespace and key are %d bytes together, over PostgreSQL's index limit of %d; use shorter ids", n, maxNameBytes)
	}
	return nil
}

// b turns a name into a bytea parameter: never nil, which pgx would send
// as NULL.
func b(s string) []byte {
	if s == "" {
		return []byte{}
	}
	return []byte(s)
}

// retry runs op again, once, when it failed before the database saw it
// (a pooled connection that died with a restarted server): the retry gets
// a fresh connection, so one restart costs no call.
func retry(ctx context.Context, op func() error) error {
	err := op()
	if err != nil && pgconn.SafeToRetry(err) && ctx.Err() == nil {
		err = op()
	}
	return err
}

// Get implements session.Store.
func (s *Store) Get(ctx context.Context, sessionID, ns, key string) ([]byte, bool, error) {
	if err := checkIDs(sessionID, ns, key); err != nil {
		return nil, false, err
	}
	if err := s.enter(ctx); err != nil {
		return nil, false, err
	}
	defer s.gate.RUnlock()
	var v []byte
	err := retry(ctx, func() error {
		return s.pool.QueryRow(ctx, `SELECT value FROM toolhost_session_state WHERE session = $1 AND ns = $2 AND key = $3`,
			b(sessionID), b(ns), b(key)).Scan(&v)
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, s.wrap("get", err)
	}
	if v == nil {
		v = []byte{}
	}
	return v, true, nil
}

// Update implements session.Store: one transaction that locks the row,
// calls fn and writes its result.
func (s *Store) Update(ctx context.Context, sessionID, ns, key string, fn func(old []byte, exists bool) ([]byte, error)) error {
	if err := checkIDs(sessionID, ns, key); err != nil {
		return err
	}
	if err := s.enter(ctx); err != nil {
		return err
	}
	defer s.gate.RUnlock()
	var tx pgx.Tx
	err := retry(ctx, func() (err error) {
		tx, err = s.pool.Begin(ctx)
		return err
	})
	if err != nil {
		return s.wrap("update", err)
	}
	// Rollback after Commit does nothing; on a panic in fn it releases the
	// row lock and the connection. It must run even when ctx has ended.
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	sid, n, k := b(sessionID), b(ns), b(key)
	for {
		var old []byte
		err := tx.QueryRow(ctx, `SELECT value FROM toolhost_session_state WHERE session = $1 AND ns = $2 AND key = $3 FOR UPDATE`, sid, n, k).Scan(&old)
		exists := err == nil
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return s.wrap("update", err)
		}
		if exists && old == nil {
			old = []byte{}
		}
		nv, err := fn(old, exists)
		if err != nil {
			return err
		}
		// A cancellation during fn rolls the transaction back.
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("session store: %w", err)
		}
		var tag pgconn.CommandTag
		switch {
		case nv == nil && !exists:
			return nil
		case nv == nil:
			tag, err = tx.Exec(ctx, `DELETE FROM toolhost_session_state WHERE session = $1 AND ns = $2 AND key = $3`, sid, n, k)
		case exists:
			tag, err = tx.Exec(ctx, `UPDATE toolhost_session_state SET value = $4, updated_at = now() WHERE session = $1 AND ns = $2 AND key = $3`, sid, n, k, nonNil(nv))
		default:
			// No row to lock: another writer may insert the key
			// first, in which case nothing is inserted and fn runs
			// again on its value.
			tag, err = tx.Exec(ctx, `INSERT INTO toolhost_session_state (session, ns, key, value) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`, sid, n, k, nonNil(nv))
		}
		if err != nil {
			return s.wrap("update", err)
		}
		if tag.RowsAffected() == 0 && !exists {
			continue
		}
		if err := tx.Commit(ctx); err != nil {
			return s.wrap("update: commit", err)
		}
		return nil
	}
}

func nonNil(v []byte) []byte {
	if v == nil {
		return []byte{}
	}
	return v
}

// List implements session.Store.
func (s *Store) List(ctx context.Context, sessionID, ns string) ([]session.KV, error) {
	if err := checkIDs(sessionID, ns, ""); err != nil {
		return nil, err
	}
	if err := s.enter(ctx); err != nil {
		return nil, err
	}
	defer s.gate.RUnlock()
	var out []session.KV
	err := retry(ctx, func() error {
		out = nil
		rows, err := s.pool.Query(ctx, `SELECT key, value FROM toolhost_session_state WHERE session = $1 AND ns = $2 ORDER BY key`, b(sessionID), b(ns))
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var k, v []byte
			if err := rows.Scan(&k, &v); err != nil {
				return err
			}
			out = append(out, session.KV{Key: string(k), Value: nonNil(v)})
		}
		return rows.Err()
	})
	if err != nil {
		return nil, s.wrap("list", err)
	}
	return out, nil
}

// DeleteSession implements session.Store.
func (s *Store) DeleteSession(ctx context.Context, sessionID string) error {
	if err := checkIDs(sessionID, "-", ""); err != nil {
		return err
	}
	if err := s.enter(ctx); err != nil {
		return err
	}
	defer s.gate.RUnlock()
	err := retry(ctx, func() error {
		_, err := s.pool.Exec(ctx, `DELETE FROM toolhost_session_state WHERE session = $1`, b(sessionID))
		return err
	})
	return s.wrap("delete session", err)
}

// Ping implements session.Pinger: it succeeds when the database answers,
// which is what a replica's readiness probe asks.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.enter(ctx); err != nil {
		return err
	}
	defer s.gate.RUnlock()
	return s.wrap("ping", s.pool.Ping(ctx))
}
