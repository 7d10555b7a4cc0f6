package session

import (
	"context"
	"errors"
	"fmt"
)

// Store keeps per-session state as bytes under (session id, namespace,
// key). Implementations are safe for concurrent use by many goroutines;
// Bolt also by many processes sharing one file. Every implementation passes
// sessiontest.Run.
//
// Session ids and namespaces must not be empty; keys may be any string up to
// 1 KiB, empty, unicode, slashes and NUL included. Values are copied on the
// way in and out: a caller may keep and modify the slices it passes and
// receives. A method called with a cancelled context returns an error
// wrapping ctx.Err() and changes nothing; after Close every method returns
// an error wrapping ErrClosed.
type Store interface {
	// Get returns the value stored under key and whether it exists. A
	// missing session, namespace or key is (nil, false, nil).
	Get(ctx context.Context, sessionID, ns, key string) (value []byte, exists bool, err error)

	// Update replaces the value under key with fn's result in one
	// transaction: concurrent Updates of the same key, from any goroutine
	// (or process, for a shared store), never lose one another's change.
	// fn sees a copy of the old value (nil, false when absent) and may be
	// called more than once; it must not use the store. A nil result
	// deletes the key; an empty non-nil result stores an empty value. An
	// error from fn, a panic in fn or the context ending before the
	// change is committed leaves the value as it was; fn's error is
	// returned wrapped.
	Update(ctx context.Context, sessionID, ns, key string, fn func(old []byte, exists bool) ([]byte, error)) error

	// List returns every key and value of a namespace in byte order of the
	// keys; a missing session or namespace gives none.
	List(ctx context.Context, sessionID, ns string) ([]KV, error)

	// DeleteSession removes everything stored for the session, in every
	// namespace. A missing session is not an error.
	DeleteSession(ctx context.Context, sessionID string) error

	// Close releases the store. Calling it again returns nil; any other
	// method afterwards returns an error wrapping ErrClosed.
	Close() error
}

// KV is one entry of List.
type KV struct {
	Key   string
	Value []byte
}

// ErrClosed is wrapped by the errors of a Store used after Close.
var ErrClosed = errors.New("session store is closed")

// Put stores value under key, replacing what was there. A nil value is
// stored as an empty one; use Delete to remove a key.
func Put(ctx context.Context, s Store, sessionID, ns, key string, value []byte) error {
	if value == nil {
		value = []byte{}
	}
	return s.Update(ctx, sessionID, ns, key, func([]byte, bool) ([]byte, error) { return value, nil })
}

// Delete removes key; deleting a missing key is not an error.
func Delete(ctx context.Context, s Store, sessionID, ns, key string) error {
	return s.Update(ctx, sessionID, ns, key, func([]byte, bool) ([]byte, error) { return nil, nil })
}

// checkIDs refuses the empty session id and namespace, which no backend
// could tell apart from "all sessions" or "no namespace".
func checkIDs(sessionID, ns string) error {
	if sessionID == "" {
		return errors.New("session store: empty session id; pass the id of the session the state belongs to")
	}
	if ns == "" {
		return errors.New("session store: empty namespace; name the kind of state (\"todo\", \"filetime\", ...)")
	}
	return nil
}

// ctxErr wraps a context's error, or is nil while the context lives.
func ctxErr(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("session store: %w", err)
	}
	return nil
}

// closedErr is returned by a closed store.
func closedErr() error { return fmt.Errorf("session store: %w", ErrClosed) }
