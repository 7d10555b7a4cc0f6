package session

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

func TestStoreRoundTripsValuesPerSessionAndNamespace(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, err := Open(filepath.Join(t.TempDir(), "d", "sessions.db"))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, err := s.Get(ctx, "s1", "todo", "list"); err != nil || ok {
		t.Fatalf("empty store: ok=%v err=%v", ok, err)
	}
	if err := s.Put(ctx, "s1", "todo", "list", []byte("a")); err != nil {
		t.Fatal(err)
	}
	if err := s.Put(ctx, "s2", "todo", "list", []byte("b")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ session, want string }{{"s1", "a"}, {"s2", "b"}} {
		v, ok, err := s.Get(ctx, tc.session, "todo", "list")
		if err != nil || !ok || string(v) != tc.want {
			t.Errorf("%s: got %q %v %v, want %q", tc.session, v, ok, err, tc.want)
		}
	}
	if err := s.Delete(ctx, "s1", "todo", "list"); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.Get(ctx, "s1", "todo", "list"); ok {
		t.Error("deleted key still present")
	}
	if _, _, err := s.Get(ctx, "", "todo", "x"); err == nil {
		t.Error("empty session id accepted")
	}
}

func TestStoreUpdateIsAtomicAcrossGoroutinesAndHandles(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "sessions.db")
	a, _ := Open(path)
	b, _ := Open(path) // a second handle stands in for a second process
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Add(1)
		go func(s *Store) {
			defer wg.Done()
			err := s.Update(ctx, "s", "n", "count", func(old []byte, _ bool) ([]byte, error) {
				var n int
				fmt.Sscan(string(old), &n)
				return []byte(fmt.Sprint(n + 1)), nil
			})
			if err != nil {
				t.Error(err)
			}
		}(map[bool]*Store{true: a, false: b}[i%2 == 0])
	}
	wg.Wait()
	v, _, _ := a.Get(ctx, "s", "n", "count")
	if string(v) != "40" {
		t.Fatalf("count = %s, want 40", v)
	}
	kvs, err := b.List(ctx, "s", "n")
	if err != nil || len(kvs) != 1 || kvs[0].Key != "count" {
		t.Fatalf("List = %v, %v", kvs, err)
	}
}

func TestStoreReopensAfterIdleCloseAndExplicitClose(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := Open(filepath.Join(t.TempDir(), "sessions.db"))
	s.IdleClose = time.Millisecond
	if err := s.Put(ctx, "s", "n", "k", []byte("1")); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond) // let the idle close happen
	if v, ok, err := s.Get(ctx, "s", "n", "k"); err != nil || !ok || string(v) != "1" {
		t.Fatalf("after idle close: %q %v %v", v, ok, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Put(ctx, "s", "n", "k", []byte("2")); err != nil {
		t.Fatalf("put after Close: %v", err)
	}
	if v, _, _ := s.Get(ctx, "s", "n", "k"); string(v) != "2" {
		t.Fatalf("value after reopen = %q", v)
	}
}

// BenchmarkStorePut measures a write while the store stays open, against
// the old open-per-transaction behaviour (IdleClose below the gap between
// writes) as the baseline.
func BenchmarkStorePut(b *testing.B) {
	for _, tc := range []struct {
		name string
		idle time.Duration
	}{{"kept-open", time.Second}, {"open-per-write-baseline", time.Nanosecond}} {
		b.Run(tc.name, func(b *testing.B) {
			s, _ := Open(filepath.Join(b.TempDir(), "sessions.db"))
			s.IdleClose = tc.idle
			ctx := context.Background()
			for i := 0; b.Loop(); i++ {
				if tc.idle == time.Nanosecond {
					s.Close()
				}
				if err := s.Put(ctx, "s", "filetime", fmt.Sprint(i%100), []byte("{}")); err != nil {
					b.Fatal(err)
				}
			}
			s.Close()
		})
	}
}
