package pgstore_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/runtime/session"
	"github.com/toolhost/toolhost/runtime/session/pgstore"
)

// TestAStoreOutlivesADatabaseRestart stops the package's server, so it
// is not parallel: Go runs it before any parallel test starts.
func TestAStoreOutlivesADatabaseRestart(t *testing.T) {
	srv := pg.Server(t)
	url := pg.Database(t)
	s := open(t, url)
	ctx := t.Context()
	if err := session.Put(ctx, s, "s", "n", "k", []byte("before")); err != nil {
		t.Fatal(err)
	}
	heard := make(chan string, 100)
	if err := s.Listen(ctx, "wake", func(p string) { heard <- p }); err != nil {
		t.Fatal(err)
	}

	if err := srv.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	restarted := false
	t.Cleanup(func() {
		if !restarted {
			_ = srv.Restart(t.Context())
		}
	})
	_, _, err := s.Get(ctx, "s", "n", "k")
	if !errors.Is(err, pgstore.ErrUnavailable) || !strings.Contains(err.Error(), "check that PostgreSQL is running") {
		t.Fatalf("get with the database down = %v; want ErrUnavailable with a remedy", err)
	}
	if err := session.Put(ctx, s, "s", "n", "k", []byte("lost")); !errors.Is(err, pgstore.ErrUnavailable) {
		t.Fatalf("put with the database down = %v; want ErrUnavailable", err)
	}
	if err := s.Ping(ctx); !errors.Is(err, pgstore.ErrUnavailable) {
		t.Fatalf("ping with the database down = %v; want ErrUnavailable", err)
	}

	// Forget the wake-ups of the first connection: the one that counts
	// comes after the restart.
	for len(heard) > 0 {
		<-heard
	}
	if err := srv.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	restarted = true
	if err := s.Ping(ctx); err != nil {
		t.Fatalf("ping after restart: %v", err)
	}
	if v, _, err := s.Get(ctx, "s", "n", "k"); err != nil || string(v) != "before" {
		t.Fatalf("get after restart = %q, %v; want the value written before", v, err)
	}
	if err := session.Put(ctx, s, "s", "n", "k", []byte("after")); err != nil {
		t.Fatalf("put after restart: %v", err)
	}

	// The listener reconnects by itself, says so with the empty
	// payload, and hears notifications again.
	select {
	case p := <-heard:
		if p != "" {
			t.Fatalf("heard %q before any notification was sent", p)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the listener did not reconnect after the restart")
	}
	if err := s.Notify(ctx, "wake", "again"); err != nil {
		t.Fatal(err)
	}
	select {
	case p := <-heard:
		for p == "" {
			p = <-heard
		}
		if p != "again" {
			t.Errorf("heard %q after reconnecting", p)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the listener did not hear a notification after the restart")
	}
}
