package pgstore

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/toolhost/toolhost/runtime/session"
)

// pgChannel is the one PostgreSQL channel every toolhost replica of a
// database listens on. Logical channels travel in the payload
// ("channel\npayload"), so the listening connection issues LISTEN once and
// never has to be interrupted to subscribe to another channel.
const pgChannel = "toolhost_session"

// listener keeps one dedicated connection (LISTEN holds it; a pooled one
// would be handed to others) that receives notifications and hands them to
// the process's listeners. It starts with the first Listen and reconnects
// until Close; after every reconnect it wakes every listener with the
// empty payload, because notifications sent while it was away are lost.
type listener struct {
	store      *Store
	connConfig *pgx.ConnConfig

	fan session.Fanout

	once   sync.Once
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}
	ready  chan struct{} // closed once the first LISTEN is in place
}

// Notify implements session.Notifier with pg_notify, which delivers when
// the sending transaction commits: here at once.
func (s *Store) Notify(ctx context.Context, channel, payload string) error {
	if err := session.CheckNotify(channel, payload); err != nil {
		return err
	}
	if err := s.enter(ctx); err != nil {
		return err
	}
	defer s.gate.RUnlock()
	err := retry(ctx, func() error {
		_, err := s.pool.Exec(ctx, `SELECT pg_notify($1, $2)`, pgChannel, channel+"\n"+payload)
		return err
	})
	return s.wrap("notify", err)
}

// Listen implements session.Notifier. The first Listen of a Store starts
// its listening connection and waits, up to ctx, for it to be in place.
func (s *Store) Listen(ctx context.Context, channel string, fn func(string)) error {
	if err := session.CheckNotify(channel, ""); err != nil {
		return err
	}
	if fn == nil {
		return errors.New("session store: Listen with a nil function")
	}
	if err := s.enter(ctx); err != nil {
		return err
	}
	l := &s.listen
	l.once.Do(l.start)
	s.gate.RUnlock()
	l.fan.Add(ctx, channel, fn)
	select {
	case <-l.ready:
		return nil
	case <-ctx.Done():
		return s.wrap("listen", ctx.Err())
	case <-time.After(5 * time.Second):
		// The database is down: fn is called with "" once the
		// listener reconnects, so the caller loses nothing by going on.
		return nil
	}
}

func (l *listener) start() {
	l.ctx, l.cancel = context.WithCancel(context.Background())
	l.done = make(chan struct{})
	l.ready = make(chan struct{})
	go l.run()
}

// close stops the listening connection; called by Store.Close.
func (l *listener) close() {
	if l.cancel == nil {
		return
	}
	l.cancel()
	<-l.done
}

func (l *listener) run() {
	defer close(l.done)
	first := true
	backoff := 100 * time.Millisecond
	for l.ctx.Err() == nil {
		err := l.listenOnce(func() {
			backoff = 100 * time.Millisecond
			if first {
				first = false
				close(l.ready)
			}
			// Re-read: notifications sent before this connection
			// listened (while the database was down, or before the
			// first connection of a Listen that gave up waiting) are
			// lost.
			l.fan.Send("", "")
		})
		if l.ctx.Err() != nil {
			return
		}
		_ = err // the next Notify or store call reports the outage to its caller
		select {
		case <-l.ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(backoff*2, 5*time.Second)
	}
}

// listenOnce connects, LISTENs, calls listening, and dispatches until the
// connection fails or the listener stops.
func (l *listener) listenOnce(listening func()) error {
	conn, err := pgx.ConnectConfig(l.ctx, l.connConfig.Copy())
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(l.ctx, "LISTEN "+pgx.Identifier{pgChannel}.Sanitize()); err != nil {
		return err
	}
	listening()
	for {
		n, err := conn.WaitForNotification(l.ctx)
		if err != nil {
			return err
		}
		channel, payload, ok := strings.Cut(n.Payload, "\n")
		if ok {
			l.fan.Send(channel, payload)
		}
	}
}
