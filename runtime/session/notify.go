package session

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
)

// Notifier is implemented by stores that can wake a waiter in another
// process sharing the store: a replica holding a parked call learns that
// its answer was stored through another replica. It is an optional
// interface, like io/fs's ReadFileFS: callers type-assert, and a store
// that cannot notify (Bolt, shared by processes that poll it) is used
// without.
//
// Notifications are hints, not data: the state they announce is in the
// store, and a waiter reads it there. A listener's connection may drop and
// lose notifications sent meanwhile; the store then calls fn with the
// empty payload once it listens again, meaning "re-read what you wait
// for". So a waiter calls Listen first, then reads the store, then re-reads
// on every call of fn.
type Notifier interface {
	// Notify sends payload to every Listen on channel, in every process
	// sharing the store. Channel names are 1–64 bytes without a newline;
	// payloads up to MaxPayload bytes.
	Notify(ctx context.Context, channel, payload string) error

	// Listen calls fn with every payload sent on channel from the moment
	// it returns until ctx ends. fn runs on the store's own goroutine and
	// must not block: it hands the payload on and returns.
	Listen(ctx context.Context, channel string, fn func(payload string)) error
}

// Pinger is implemented by stores that can be unreachable (a database on
// another machine): Ping succeeds when the store answers now. A store
// without it is always reachable; a readiness probe asks this.
type Pinger interface {
	Ping(ctx context.Context) error
}

// MaxPayload is the largest payload Notify takes; PostgreSQL's NOTIFY
// allows a little under 8000 bytes, and every Notifier keeps to the
// smallest backend's limit.
const MaxPayload = 7000

// CheckNotify refuses what no Notifier may send; every implementation
// calls it, so a payload that works in memory works in PostgreSQL too.
func CheckNotify(channel, payload string) error {
	if channel == "" || len(channel) > 64 || strings.ContainsAny(channel, "\n\x00") {
		return fmt.Errorf("session store: notify channel %q: want 1-64 bytes without newline or NUL", channel)
	}
	if len(payload) > MaxPayload || strings.ContainsRune(payload, 0) {
		return fmt.Errorf("session store: notify payload of %d bytes: want at most %d, without NUL; store the data and notify its key", len(payload), MaxPayload)
	}
	return nil
}

// Fanout delivers notifications to listeners in one process: Memory's
// whole Notifier, and the dispatching half of a shared store's (pgstore
// receives from the database and Sends here). The zero value is ready.
type Fanout struct {
	mu   sync.Mutex
	next int
	subs map[string]map[int]func(string)
}

// Add registers fn on channel until ctx ends.
func (f *Fanout) Add(ctx context.Context, channel string, fn func(string)) {
	f.mu.Lock()
	if f.subs == nil {
		f.subs = map[string]map[int]func(string){}
	}
	if f.subs[channel] == nil {
		f.subs[channel] = map[int]func(string){}
	}
	id := f.next
	f.next++
	f.subs[channel][id] = fn
	f.mu.Unlock()
	context.AfterFunc(ctx, func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		delete(f.subs[channel], id)
		if len(f.subs[channel]) == 0 {
			delete(f.subs, channel)
		}
	})
}

// Send calls channel's listeners with payload; an empty channel calls
// every listener.
func (f *Fanout) Send(channel, payload string) {
	f.mu.Lock()
	var fns []func(string)
	for ch, subs := range f.subs {
		if channel == "" || ch == channel {
			for _, fn := range subs {
				fns = append(fns, fn)
			}
		}
	}
	f.mu.Unlock()
	for _, fn := range fns {
		fn(payload)
	}
}

var _ Notifier = (*Memory)(nil)

// Notify implements Notifier within the process.
func (m *Memory) Notify(ctx context.Context, channel, payload string) error {
	if err := CheckNotify(channel, payload); err != nil {
		return err
	}
	if err := m.lock(ctx); err != nil {
		return err
	}
	m.mu.Unlock()
	m.notify.Send(channel, payload)
	return nil
}

// Listen implements Notifier within the process.
func (m *Memory) Listen(ctx context.Context, channel string, fn func(string)) error {
	if err := CheckNotify(channel, ""); err != nil {
		return err
	}
	if fn == nil {
		return errors.New("session store: Listen with a nil function")
	}
	if err := m.lock(ctx); err != nil {
		return err
	}
	m.mu.Unlock()
	m.notify.Add(ctx, channel, fn)
	return nil
}
