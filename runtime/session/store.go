package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Store is the session database. It is safe for concurrent use by many
// goroutines and many processes.
//
// The database is opened on first use and kept open while transactions
// keep coming; it is closed after IdleClose without one, which releases
// bbolt's exclusive file lock so other toolhost processes sharing the data
// directory get their turn (they wait up to lockTimeout). A busy
// long-running host thus pays the open once, and a one-shot CLI call pays
// it once per process.
type Store struct {
	path string
	// IdleClose is how long the database stays open after the last
	// transaction. Default 100 ms.
	IdleClose time.Duration

	mu     sync.Mutex
	db     *bolt.DB
	active int
	idle   *time.Timer
}

// Open returns a store backed by the file at path, creating its directory.
// The file itself is created on first write.
func Open(path string) (*Store, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("open session store %s: %w", path, err)
	}
	return &Store{path: path}, nil
}

// Path is the database file.
func (s *Store) Path() string { return s.path }

// lockTimeout bounds how long a transaction waits for another process.
const lockTimeout = 10 * time.Second

const defaultIdleClose = 100 * time.Millisecond

// acquire returns the open database, opening it if needed, and counts the
// caller as active until release.
func (s *Store) acquire(create bool) (*bolt.DB, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.idle != nil {
		s.idle.Stop()
		s.idle = nil
	}
	if s.db == nil {
		if !create {
			if _, err := os.Stat(s.path); errors.Is(err, os.ErrNotExist) {
				return nil, nil
			}
		}
		db, err := bolt.Open(s.path, 0o600, &bolt.Options{Timeout: lockTimeout})
		if err != nil {
			return nil, fmt.Errorf("open session store %s: %w", s.path, err)
		}
		// Session state is not worth an fsync per write (it dominated a
		// read call's cost): writes reach the OS at commit, so a crashed
		// process loses nothing; only a crash of the machine itself can
		// lose the last writes. The file is synced when it is closed.
		db.NoSync = true
		s.db = db
	}
	s.active++
	return s.db, nil
}

func (s *Store) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.active--
	if s.active > 0 || s.db == nil {
		return
	}
	d := s.IdleClose
	if d <= 0 {
		d = defaultIdleClose
	}
	s.idle = time.AfterFunc(d, s.closeIfIdle)
}

func (s *Store) closeIfIdle() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.active == 0 && s.db != nil {
		_ = s.db.Sync()
		_ = s.db.Close()
		s.db = nil
	}
}

// Close closes the database now; later transactions open it again.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.idle != nil {
		s.idle.Stop()
		s.idle = nil
	}
	if s.db == nil || s.active > 0 {
		return nil
	}
	err := errors.Join(s.db.Sync(), s.db.Close())
	s.db = nil
	return err
}

func (s *Store) do(ctx context.Context, write bool, fn func(tx *bolt.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	db, err := s.acquire(write)
	if err != nil {
		return err
	}
	if db == nil { // nothing written yet: every read finds nothing
		return fn(nil)
	}
	defer s.release()
	if write {
		return db.Update(fn)
	}
	return db.View(fn)
}

func bucket(tx *bolt.Tx, sessionID, ns string, create bool) (*bolt.Bucket, error) {
	if tx == nil {
		return nil, nil
	}
	if create {
		sb, err := tx.CreateBucketIfNotExists([]byte(sessionID))
		if err != nil {
			return nil, err
		}
		return sb.CreateBucketIfNotExists([]byte(ns))
	}
	sb := tx.Bucket([]byte(sessionID))
	if sb == nil {
		return nil, nil
	}
	return sb.Bucket([]byte(ns)), nil
}

func checkIDs(sessionID, ns string) error {
	if sessionID == "" {
		return errors.New("session store: empty session id")
	}
	if ns == "" {
		return errors.New("session store: empty namespace")
	}
	return nil
}

// Get returns the value stored under key, and whether it exists.
func (s *Store) Get(ctx context.Context, sessionID, ns, key string) ([]byte, bool, error) {
	if err := checkIDs(sessionID, ns); err != nil {
		return nil, false, err
	}
	var out []byte
	var ok bool
	err := s.do(ctx, false, func(tx *bolt.Tx) error {
		b, err := bucket(tx, sessionID, ns, false)
		if err != nil || b == nil {
			return err
		}
		if v := b.Get([]byte(key)); v != nil {
			out, ok = append([]byte(nil), v...), true
		}
		return nil
	})
	return out, ok, err
}

// Put stores value under key.
func (s *Store) Put(ctx context.Context, sessionID, ns, key string, value []byte) error {
	return s.Update(ctx, sessionID, ns, key, func([]byte, bool) ([]byte, error) { return value, nil })
}

// Delete removes key; deleting a missing key is not an error.
func (s *Store) Delete(ctx context.Context, sessionID, ns, key string) error {
	if err := checkIDs(sessionID, ns); err != nil {
		return err
	}
	return s.do(ctx, true, func(tx *bolt.Tx) error {
		b, err := bucket(tx, sessionID, ns, true)
		if err != nil {
			return err
		}
		return b.Delete([]byte(key))
	})
}

// Update atomically replaces the value under key with fn's result; fn sees
// the old value (nil, false when absent). Returning a nil slice deletes the
// key. An error from fn aborts the transaction and is returned.
func (s *Store) Update(ctx context.Context, sessionID, ns, key string, fn func(old []byte, exists bool) ([]byte, error)) error {
	if err := checkIDs(sessionID, ns); err != nil {
		return err
	}
	return s.do(ctx, true, func(tx *bolt.Tx) error {
		b, err := bucket(tx, sessionID, ns, true)
		if err != nil {
			return err
		}
		old := b.Get([]byte(key))
		var cp []byte
		if old != nil {
			cp = append([]byte(nil), old...)
		}
		nv, err := fn(cp, old != nil)
		if err != nil {
			return err
		}
		if nv == nil {
			return b.Delete([]byte(key))
		}
		return b.Put([]byte(key), nv)
	})
}

// List returns every key and value of a namespace, in key order.
func (s *Store) List(ctx context.Context, sessionID, ns string) ([]KV, error) {
	if err := checkIDs(sessionID, ns); err != nil {
		return nil, err
	}
	var out []KV
	err := s.do(ctx, false, func(tx *bolt.Tx) error {
		b, err := bucket(tx, sessionID, ns, false)
		if err != nil || b == nil {
			return err
		}
		return b.ForEach(func(k, v []byte) error {
			out = append(out, KV{Key: string(k), Value: append([]byte(nil), v...)})
			return nil
		})
	})
	return out, err
}

// KV is one entry of List.
type KV struct {
	Key   string
	Value []byte
}
