package session

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// Deferrer is an optional ability of a Store: taking a write that need not
// be durable at once. Read stamps are the case: a read tool call that waited
// for a database transaction before answering spent a fifth of its CPU on
// it, and a stamp lost in a crash costs only a re-read before the next edit.
type Deferrer interface {
	// PutDeferred stores value under key as Put does, for readers of this
	// Store (Get, List, Update) at once, and durably within the store's
	// write-behind window. A crash may lose the writes of the last window;
	// Close (and Flush) writes them all. Across processes sharing the
	// backing store a deferred write is last-writer-wins when it lands.
	PutDeferred(ctx context.Context, sessionID, ns, key string, value []byte) error
}

// PutDeferred stores value under key through s's Deferrer when it has one,
// else with Put. Use it for state whose loss in a crash is harmless.
func PutDeferred(ctx context.Context, s Store, sessionID, ns, key string, value []byte) error {
	if d, ok := s.(Deferrer); ok {
		return d.PutDeferred(ctx, sessionID, ns, key, value)
	}
	return Put(ctx, s, sessionID, ns, key, value)
}

// DefaultWriteBehindWindow is how long a deferred write may wait before
// WriteBehind writes it: the most a crash can lose.
const DefaultWriteBehindWindow = 200 * time.Millisecond

// WriteBehind is a Store over another that keeps deferred writes
// (PutDeferred) in memory and writes them to the inner store in batches, at
// most Window after the first of a batch, and on Flush and Close. Every
// other method goes to the inner store, after writing any deferred value of
// the key it changes, so the Store contract holds for callers of this
// value. Repeated deferred writes of one key (a file read a thousand times
// a second) cost one inner write per window.
type WriteBehind struct {
	inner  Store
	window time.Duration

	flushMu sync.Mutex // serialises writes of pending values with DeleteSession

	mu      sync.Mutex
	pending map[deferredKey]deferredValue
	seq     uint64
	timer   *time.Timer
	closed  bool
}

type deferredKey struct{ session, ns, key string }

type deferredValue struct {
	value []byte
	seq   uint64 // tells a value rewritten during a flush from the one flushed
}

// NewWriteBehind returns a WriteBehind over inner with the given window
// (DefaultWriteBehindWindow when ≤ 0). Closing it flushes, then closes
// inner.
func NewWriteBehind(inner Store, window time.Duration) *WriteBehind {
	if window <= 0 {
		window = DefaultWriteBehindWindow
	}
	return &WriteBehind{inner: inner, window: window, pending: map[deferredKey]deferredValue{}}
}

// Inner returns the store WriteBehind writes to.
func (w *WriteBehind) Inner() Store { return w.inner }

// PutDeferred implements Deferrer.
func (w *WriteBehind) PutDeferred(ctx context.Context, sessionID, ns, key string, value []byte) error {
	if err := checkIDs(sessionID, ns); err != nil {
		return err
	}
	if err := ctxErr(ctx); err != nil {
		return err
	}
	v := make([]byte, len(value))
	copy(v, value)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return closedErr()
	}
	w.seq++
	w.pending[deferredKey{sessionID, ns, key}] = deferredValue{value: v, seq: w.seq}
	if w.timer == nil {
		w.timer = time.AfterFunc(w.window, w.flushInBackground)
	}
	return nil
}

func (w *WriteBehind) flushInBackground() {
	// An error leaves the values pending; the next deferred write arms the
	// timer again and Close reports what still fails.
	_ = w.Flush(context.Background())
}

// Flush writes every deferred value to the inner store now. Values that
// fail stay pending and the first error is returned.
func (w *WriteBehind) Flush(ctx context.Context) error {
	w.flushMu.Lock()
	defer w.flushMu.Unlock()
	w.mu.Lock()
	w.timer = nil
	batch := make(map[deferredKey]deferredValue, len(w.pending))
	for k, v := range w.pending {
		batch[k] = v
	}
	w.mu.Unlock()
	var errs []error
	for k, v := range batch {
		if err := w.write(ctx, k, v); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// write writes one pending value to the inner store and forgets it unless
// it was replaced meanwhile. The caller holds flushMu.
func (w *WriteBehind) write(ctx context.Context, k deferredKey, v deferredValue) error {
	if err := Put(ctx, w.inner, k.session, k.ns, k.key, v.value); err != nil {
		return fmt.Errorf("write deferred %s/%s: %w", k.ns, k.key, err)
	}
	w.mu.Lock()
	if cur, ok := w.pending[k]; ok && cur.seq == v.seq {
		delete(w.pending, k)
	}
	w.mu.Unlock()
	return nil
}

func (w *WriteBehind) lookup(k deferredKey) (deferredValue, bool, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return deferredValue{}, false, closedErr()
	}
	v, ok := w.pending[k]
	return v, ok, nil
}

// Get returns a deferred value not yet written, else asks the inner store.
func (w *WriteBehind) Get(ctx context.Context, sessionID, ns, key string) ([]byte, bool, error) {
	v, ok, err := w.lookup(deferredKey{sessionID, ns, key})
	if err != nil {
		return nil, false, err
	}
	if !ok {
		return w.inner.Get(ctx, sessionID, ns, key)
	}
	if err := ctxErr(ctx); err != nil {
		return nil, false, err
	}
	return slices.Clone(v.value), true, nil
}

// Update writes the key's deferred value first, if any, so fn sees it,
// then updates the inner store.
func (w *WriteBehind) Update(ctx context.Context, sessionID, ns, key string, fn func(old []byte, exists bool) ([]byte, error)) error {
	k := deferredKey{sessionID, ns, key}
	if _, ok, err := w.lookup(k); err != nil {
		return err
	} else if ok {
		w.flushMu.Lock()
		v, still, _ := w.lookup(k)
		var err error
		if still {
			err = w.write(ctx, k, v)
		}
		w.flushMu.Unlock()
		if err != nil {
			return err
		}
	}
	return w.inner.Update(ctx, sessionID, ns, key, fn)
}

// List lists the inner store's namespace with the deferred values laid
// over it.
func (w *WriteBehind) List(ctx context.Context, sessionID, ns string) ([]KV, error) {
	kvs, err := w.inner.List(ctx, sessionID, ns)
	if err != nil {
		return nil, err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil, closedErr()
	}
	for k, v := range w.pending {
		if k.session != sessionID || k.ns != ns {
			continue
		}
		i, found := slices.BinarySearchFunc(kvs, k.key, func(kv KV, key string) int { return strings.Compare(kv.Key, key) })
		if found {
			kvs[i].Value = slices.Clone(v.value)
		} else {
			kvs = slices.Insert(kvs, i, KV{Key: k.key, Value: slices.Clone(v.value)})
		}
	}
	return kvs, nil
}

// DeleteSession forgets the session's deferred values and deletes it from
// the inner store.
func (w *WriteBehind) DeleteSession(ctx context.Context, sessionID string) error {
	w.flushMu.Lock()
	defer w.flushMu.Unlock()
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return closedErr()
	}
	if err := ctxErr(ctx); err != nil {
		w.mu.Unlock()
		return err
	}
	for k := range w.pending {
		if k.session == sessionID {
			delete(w.pending, k)
		}
	}
	w.mu.Unlock()
	return w.inner.DeleteSession(ctx, sessionID)
}

// Close writes every deferred value, then closes the inner store. A value
// that cannot be written is reported, and the inner store closed anyway.
func (w *WriteBehind) Close() error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return nil
	}
	// Closed first, so no write slips in behind the last flush.
	w.closed = true
	if w.timer != nil {
		w.timer.Stop()
	}
	w.mu.Unlock()
	return errors.Join(w.Flush(context.Background()), w.inner.Close())
}

var (
	_ Store    = (*WriteBehind)(nil)
	_ Deferrer = (*WriteBehind)(nil)
)
