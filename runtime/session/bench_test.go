package session_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/toolhost/toolhost/runtime/session"
)

// BenchmarkStorePut measures a bbolt write while the store stays open,
// against the old open-per-transaction behaviour as the baseline, and the
// in-memory store for scale.
func BenchmarkStorePut(b *testing.B) {
	for _, tc := range []struct {
		name     string
		reopen   bool
		inMemory bool
	}{{"kept-open", false, false}, {"open-per-write-baseline", true, false}, {"memory", false, true}} {
		b.Run(tc.name, func(b *testing.B) {
			var s session.Store = session.NewMemory()
			var bolt *session.Bolt
			if !tc.inMemory {
				bolt = openBolt(b, filepath.Join(b.TempDir(), "sessions.db"))
				bolt.IdleClose = time.Second
				s = bolt
			}
			ctx := context.Background()
			for i := 0; b.Loop(); i++ {
				if tc.reopen {
					session.CloseIfIdle(bolt)
				}
				if err := session.Put(ctx, s, "s", "filetime", fmt.Sprint(i%100), []byte("{}")); err != nil {
					b.Fatal(err)
				}
			}
			s.Close()
		})
	}
}

// BenchmarkStoreGet and BenchmarkStoreUpdate compare the two stores on the
// operations a tool call makes (a read stamp looked up, a counter bumped).
func BenchmarkStoreGet(b *testing.B) {
	for _, st := range stores(b) {
		s := st.store
		b.Run(st.name, func(b *testing.B) {
			ctx := context.Background()
			for i := range 100 {
				if err := session.Put(ctx, s, "s", "filetime", fmt.Sprint(i), []byte(`{"mtime":"2026-01-01T00:00:00Z","size":1}`)); err != nil {
					b.Fatal(err)
				}
			}
			for i := 0; b.Loop(); i++ {
				if _, ok, err := s.Get(ctx, "s", "filetime", fmt.Sprint(i%100)); err != nil || !ok {
					b.Fatal(ok, err)
				}
			}
		})
	}
}

func BenchmarkStoreUpdate(b *testing.B) {
	for _, st := range stores(b) {
		s := st.store
		b.Run(st.name, func(b *testing.B) {
			ctx := context.Background()
			for b.Loop() {
				err := s.Update(ctx, "s", "n", "count", func(old []byte, _ bool) ([]byte, error) {
					return append(old[:0:0], 'x'), nil
				})
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

type namedStore struct {
	name  string
	store session.Store
}

func stores(b *testing.B) []namedStore {
	bolt := openBolt(b, filepath.Join(b.TempDir(), "sessions.db"))
	bolt.IdleClose = time.Second
	m := session.NewMemory()
	b.Cleanup(func() { bolt.Close(); m.Close() })
	return []namedStore{{"bolt", bolt}, {"memory", m}}
}
