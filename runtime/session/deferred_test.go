package session_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/runtime/session"
	"github.com/toolhost/toolhost/runtime/session/sessiontest"
)

func TestWriteBehindKeepsTheStoreContract(t *testing.T) {
	t.Parallel()
	t.Run("over memory", func(t *testing.T) {
		sessiontest.Run(t, func(*testing.T) session.Store { return session.NewWriteBehind(session.NewMemory(), 0) })
	})
	t.Run("over bolt", func(t *testing.T) {
		sessiontest.Run(t, func(t *testing.T) session.Store {
			return session.NewWriteBehind(openBolt(t, filepath.Join(t.TempDir(), "sessions.db")), 0)
		})
	})
}

func TestDeferredWritesReadBackLikeWrittenOnes(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	w := session.NewWriteBehind(session.NewMemory(), time.Hour) // never flushed by the timer
	t.Cleanup(func() { w.Close() })
	if err := session.PutDeferred(ctx, w, "s", "filetime", "/b", []byte("2")); err != nil {
		t.Fatal(err)
	}
	if err := session.Put(ctx, w, "s", "filetime", "/a", []byte("1")); err != nil {
		t.Fatal(err)
	}
	if err := session.PutDeferred(ctx, w, "s", "filetime", "/c", []byte("3")); err != nil {
		t.Fatal(err)
	}
	if v, ok, err := w.Get(ctx, "s", "filetime", "/b"); err != nil || !ok || string(v) != "2" {
		t.Errorf("get of a deferred value = %q %v %v", v, ok, err)
	}
	if v, ok, err := w.Inner().Get(ctx, "s", "filetime", "/b"); err != nil || ok {
		t.Errorf("the inner store has the deferred value before a flush: %q %v %v", v, ok, err)
	}
	kvs, err := w.List(ctx, "s", "filetime")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, kv := range kvs {
		got = append(got, kv.Key+"="+string(kv.Value))
	}
	if strings.Join(got, " ") != "/a=1 /b=2 /c=3" {
		t.Errorf("list = %v, want the written and deferred values in key order", got)
	}
	// Update sees the deferred value as the old one.
	err = w.Update(ctx, "s", "filetime", "/b", func(old []byte, ok bool) ([]byte, error) {
		if !ok || string(old) != "2" {
			return nil, fmt.Errorf("update saw %q %v, want the deferred 2", old, ok)
		}
		return []byte("20"), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if v, _, _ := w.Get(ctx, "s", "filetime", "/b"); string(v) != "20" {
		t.Errorf("after update = %q, want 20", v)
	}
	// Deleting the session drops its deferred values: nothing is
	// resurrected by a later flush.
	if err := w.DeleteSession(ctx, "s"); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if v, ok, _ := w.Get(ctx, "s", "filetime", "/c"); ok {
		t.Errorf("deferred value survived DeleteSession: %q", v)
	}
}

func TestPutDeferredFallsBackToPutOnAStoreThatCannotDefer(t *testing.T) {
	t.Parallel()
	m := session.NewMemory()
	if err := session.PutDeferred(t.Context(), m, "s", "n", "k", []byte("v")); err != nil {
		t.Fatal(err)
	}
	if v, ok, err := m.Get(t.Context(), "s", "n", "k"); err != nil || !ok || string(v) != "v" {
		t.Errorf("get = %q %v %v", v, ok, err)
	}
}

func TestPutDeferredRefusesWhatPutRefuses(t *testing.T) {
	t.Parallel()
	w := session.NewWriteBehind(session.NewMemory(), time.Hour)
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	tests := []struct {
		name    string
		ctx     context.Context
		sid, ns string
		want    error
	}{
		{"an empty session id", t.Context(), "", "n", nil},
		{"an empty namespace", t.Context(), "s", "", nil},
		{"a cancelled context", cancelled, "s", "n", context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := w.PutDeferred(tt.ctx, tt.sid, tt.ns, "k", []byte("v"))
			if err == nil || (tt.want != nil && !errors.Is(err, tt.want)) {
				t.Errorf("err = %v, want a refusal (%v)", err, tt.want)
			}
		})
	}
	w.Close()
	if err := w.PutDeferred(t.Context(), "s", "n", "k", nil); !errors.Is(err, session.ErrClosed) {
		t.Errorf("after Close: %v, want ErrClosed", err)
	}
}

func TestTheWindowWritesDeferredValuesWithoutAFlush(t *testing.T) {
	t.Parallel()
	inner := session.NewMemory()
	w := session.NewWriteBehind(inner, time.Millisecond)
	t.Cleanup(func() { w.Close() })
	if err := w.PutDeferred(t.Context(), "s", "n", "k", []byte("v")); err != nil {
		t.Fatal(err)
	}
	// Wait for the write, not for a time: the test fails only by timing
	// out if the timer never writes.
	for {
		if v, ok, err := inner.Get(t.Context(), "s", "n", "k"); err != nil || ok {
			if err != nil || string(v) != "v" {
				t.Fatalf("inner get = %q %v %v", v, ok, err)
			}
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// readerEnv names the database a re-executed test binary reads the stamp
// from, printing it.
const readerEnv = "TOOLHOST_SESSION_TEST_READ"

func TestACleanCloseWritesDeferredValuesForOtherProcesses(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "sessions.db")
	b := openBolt(t, path)
	w := session.NewWriteBehind(b, time.Hour) // only Close writes
	for i := range 3 {
		if err := w.PutDeferred(t.Context(), "s", "filetime", "/p", []byte(fmt.Sprint("stamp ", i))); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok, err := b.Get(t.Context(), "s", "filetime", "/p"); err != nil || ok {
		t.Fatalf("the stamp reached the database before Close (%v %v): the window is not honoured", ok, err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), readerEnv+"="+path)
	out, err := cmd.CombinedOutput()
	if err != nil || string(out) != "stamp 2" {
		t.Errorf("another process read %q (%v), want the last deferred value %q", out, err, "stamp 2")
	}
}

// readStamp prints the value TestACleanCloseWritesDeferredValuesForOtherProcesses
// stored, as a second toolhost process would find it.
func readStamp(path string) error {
	s, err := session.Open(path)
	if err != nil {
		return err
	}
	defer s.Close()
	v, ok, err := s.Get(context.Background(), "s", "filetime", "/p")
	if err != nil || !ok {
		return fmt.Errorf("no stamp: %v %v", ok, err)
	}
	_, err = os.Stdout.Write(v)
	return err
}
