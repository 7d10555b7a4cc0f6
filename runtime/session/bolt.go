package session

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Bolt is a Store in a bbolt database file. It is safe for concurrent use
// by many goroutines and many processes.
//
// The database is opened on first use and kept open while transactions
// keep coming; it is closed after IdleClose without one, which releases
// bbolt's exclusive file lock so other toolhost processes sharing the data
// directory get their turn (they wait up to lockTimeout). A busy
// long-running host thus pays the open once, and a one-shot CLI call pays
// it once per process. Close closes it for good.
type Bolt struct {
	path string
	// IdleClose is how long the database stays open after the last
	// transaction. Default 100 ms.
	IdleClose time.Duration

	// gate is held shared by every transaction and exclusively by Close,
	// so Close waits for transactions in flight and none starts after it.
	gate   sync.RWMutex
	closed bool // under gate

	mu     sync.Mutex
	db     *bolt.DB
	active int
	idle   *time.Timer
}

var _ Store = (*Bolt)(nil)

// Open returns a store backed by the file at path, creating its directory.
// The file itself is created on first write.
func Open(path string) (*Bolt, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("open session store %s: %w", path, err)
	}
	return &Bolt{path: path}, nil
}

// Path is the database file.
func (s *Bolt) Path() string { return s.path }

// lockTimeout bounds how long a transaction waits for another process.
const lockTimeout = 10 * time.Second

const defaultIdleClose = 100 * time.Millisecond

// acquire returns the open database, opening it if needed, and counts the
// caller as active until release. Without create, a database file that
// does not exist yet gives a nil database: there is nothing to read.
func (s *Bolt) acquire(create bool) (*bolt.DB, error) {
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
			return nil, fmt.Errorf("open session store %s: %w; another toolhost process may hold it", s.path, err)
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

func (s *Bolt) release() {
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

// closeIfIdle closes the database, releasing its file lock, unless a
// transaction is running; the next transaction opens it again.
func (s *Bolt) closeIfIdle() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.active == 0 && s.db != nil {
		_ = s.db.Sync()
		_ = s.db.Close()
		s.db = nil
	}
}

// Close waits for transactions in flight, then syncs and closes the
// database. Later calls return an error wrapping ErrClosed; Close itself
// may be called again.
func (s *Bolt) Close() error {
	s.gate.Lock()
	defer s.gate.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.idle != nil {
		s.idle.Stop()
		s.idle = nil
	}
	if s.db == nil {
		return nil
	}
	err := errors.Join(s.db.Sync(), s.db.Close())
	s.db = nil
	if err != nil {
		return fmt.Errorf("close session store %s: %w", s.path, err)
	}
	return nil
}

// do runs fn in a transaction; tx is nil when the database does not exist
// yet and create is false.
func (s *Bolt) do(ctx context.Context, write, create bool, fn func(tx *bolt.Tx) error) error {
	if err := ctxErr(ctx); err != nil {
		return err
	}
	s.gate.RLock()
	defer s.gate.RUnlock()
	if s.closed {
		return closedErr()
	}
	db, err := s.acquire(create)
	if err != nil {
		return err
	}
	if db == nil {
		return fn(nil)
	}
	defer s.release()
	// Opening may have waited for another process.
	if err := ctxErr(ctx); err != nil {
		return err
	}
	if write {
		return db.Update(fn)
	}
	return db.View(fn)
}

// encodeKey maps a key to a bbolt key. bbolt refuses the empty key, so the
// empty key and every key starting with NUL get a NUL in front; no other
// key does, so the mapping is one-to-one, keeps byte order, and leaves
// every ordinary key stored as it is.
func encodeKey(key string) []byte {
	if key == "" || key[0] == 0 {
		return append([]byte{0}, key...)
	}
	return []byte(key)
}

func decodeKey(k []byte) string {
	if len(k) > 0 && k[0] == 0 {
		k = k[1:]
	}
	return string(k)
}

// namespace returns the namespace's bucket, creating it and the session's
// when create is set; nil when it does not exist.
func namespace(tx *bolt.Tx, sessionID, ns string, create bool) (*bolt.Bucket, error) {
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

// lookup returns the value under k in b, told apart from absence even when
// it is empty.
func lookup(b *bolt.Bucket, k []byte) ([]byte, bool) {
	if b == nil {
		return nil, false
	}
	ck, v := b.Cursor().Seek(k)
	if ck == nil || !bytes.Equal(ck, k) || v == nil {
		return nil, false
	}
	return v, true
}

// Get implements Store.
func (s *Bolt) Get(ctx context.Context, sessionID, ns, key string) ([]byte, bool, error) {
	if err := checkIDs(sessionID, ns); err != nil {
		return nil, false, err
	}
	var out []byte
	var ok bool
	err := s.do(ctx, false, false, func(tx *bolt.Tx) error {
		b, err := namespace(tx, sessionID, ns, false)
		if err != nil {
			return err
		}
		var v []byte
		if v, ok = lookup(b, encodeKey(key)); ok {
			out = append([]byte{}, v...)
		}
		return nil
	})
	if err != nil {
		return nil, false, err
	}
	return out, ok, nil
}

// Update implements Store.
func (s *Bolt) Update(ctx context.Context, sessionID, ns, key string, fn func(old []byte, exists bool) ([]byte, error)) error {
	if err := checkIDs(sessionID, ns); err != nil {
		return err
	}
	k := encodeKey(key)
	return s.do(ctx, true, true, func(tx *bolt.Tx) error {
		b, err := namespace(tx, sessionID, ns, false)
		if err != nil {
			return err
		}
		old, exists := lookup(b, k)
		var cp []byte
		if exists {
			cp = append([]byte{}, old...)
		}
		nv, err := fn(cp, exists)
		if err != nil {
			return err
		}
		// A cancellation during fn rolls the transaction back.
		if err := ctxErr(ctx); err != nil {
			return err
		}
		if nv == nil {
			if b == nil {
				return nil
			}
			return b.Delete(k)
		}
		if b == nil {
			if b, err = namespace(tx, sessionID, ns, true); err != nil {
				return err
			}
		}
		// bbolt keeps the slice until commit; a copy guards against fn
		// handing out a slice it goes on changing.
		return b.Put(k, append([]byte{}, nv...))
	})
}

// List implements Store.
func (s *Bolt) List(ctx context.Context, sessionID, ns string) ([]KV, error) {
	if err := checkIDs(sessionID, ns); err != nil {
		return nil, err
	}
	var out []KV
	err := s.do(ctx, false, false, func(tx *bolt.Tx) error {
		b, err := namespace(tx, sessionID, ns, false)
		if err != nil || b == nil {
			return err
		}
		return b.ForEach(func(k, v []byte) error {
			if v == nil { // a nested bucket, which this package never makes
				return nil
			}
			out = append(out, KV{Key: decodeKey(k), Value: append([]byte{}, v...)})
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// DeleteSession implements Store.
func (s *Bolt) DeleteSession(ctx context.Context, sessionID string) error {
	if err := checkIDs(sessionID, "-"); err != nil {
		return err
	}
	return s.do(ctx, true, false, func(tx *bolt.Tx) error {
		if tx == nil || tx.Bucket([]byte(sessionID)) == nil {
			return nil
		}
		return tx.DeleteBucket([]byte(sessionID))
	})
}
