package session_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/toolhost/toolhost/runtime/session"
	"github.com/toolhost/toolhost/runtime/session/sessiontest"
)

func openBolt(t testing.TB, path string) *session.Bolt {
	t.Helper()
	s, err := session.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestBoltKeepsTheStoreContract(t *testing.T) {
	t.Parallel()
	sessiontest.Run(t, func(t *testing.T) session.Store {
		return openBolt(t, filepath.Join(t.TempDir(), "d", "sessions.db"))
	})
}

func TestMemoryKeepsTheStoreContract(t *testing.T) {
	t.Parallel()
	sessiontest.Run(t, func(*testing.T) session.Store { return session.NewMemory() })
}

func TestTheZeroMemoryIsReadyToUse(t *testing.T) {
	t.Parallel()
	var m session.Memory
	if err := session.Put(t.Context(), &m, "s", "n", "k", []byte("v")); err != nil {
		t.Fatal(err)
	}
	if v, ok, err := m.Get(t.Context(), "s", "n", "k"); err != nil || !ok || string(v) != "v" {
		t.Fatalf("get = %q %v %v", v, ok, err)
	}
}

func TestTwoBoltHandlesOnOneFileShareTheStore(t *testing.T) {
	t.Parallel()
	sessiontest.RunShared(t, func(t *testing.T) (session.Store, session.Store) {
		path := filepath.Join(t.TempDir(), "sessions.db")
		a, b := openBolt(t, path), openBolt(t, path)
		// Each handle holds the file lock until idle; a short idle time
		// keeps the hand-overs between them quick.
		a.IdleClose, b.IdleClose = 5*time.Millisecond, 5*time.Millisecond
		return a, b
	})
}

// helperEnv names the database a re-executed test binary increments.
const helperEnv = "TOOLHOST_SESSION_TEST_INCREMENT"

// TestMain lets the test binary stand in for a second toolhost process.
func TestMain(m *testing.M) {
	if path := os.Getenv(readerEnv); path != "" {
		if err := readStamp(path); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if path := os.Getenv(helperEnv); path != "" {
		if err := incrementMany(context.Background(), path, perProcess); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

const perProcess = 50

func incrementMany(ctx context.Context, path string, n int) error {
	s, err := session.Open(path)
	if err != nil {
		return err
	}
	defer s.Close()
	s.IdleClose = time.Millisecond
	for range n {
		err := s.Update(ctx, "s", "n", "count", func(old []byte, _ bool) ([]byte, error) {
			c, _ := strconv.Atoi(string(old))
			return []byte(strconv.Itoa(c + 1)), nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func TestBoltUpdatesFromSeveralProcessesLoseNothing(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "sessions.db")
	const processes = 3
	var wg sync.WaitGroup
	errs := make(chan error, processes+1)
	for range processes {
		wg.Go(func() {
			cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), helperEnv+"="+path)
			if out, err := cmd.CombinedOutput(); err != nil {
				errs <- fmt.Errorf("helper process: %v\n%s", err, out)
			}
		})
	}
	wg.Go(func() {
		if err := incrementMany(t.Context(), path, perProcess); err != nil {
			errs <- err
		}
	})
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	s := openBolt(t, path)
	defer s.Close()
	v, _, err := s.Get(t.Context(), "s", "n", "count")
	if err != nil || string(v) != strconv.Itoa((processes+1)*perProcess) {
		t.Fatalf("count = %s, %v; want %d", v, err, (processes+1)*perProcess)
	}
}

func TestBoltReleasesTheFileWhenIdleAndReopens(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "sessions.db")
	a := openBolt(t, path)
	defer a.Close()
	a.IdleClose = time.Hour // only the explicit idle close below releases it
	if err := session.Put(ctx, a, "s", "n", "k", []byte("1")); err != nil {
		t.Fatal(err)
	}
	session.CloseIfIdle(a)
	// With a's lock released another handle opens the file at once.
	b := openBolt(t, path)
	defer b.Close()
	if err := session.Put(ctx, b, "s", "n", "k", []byte("2")); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if v, ok, err := a.Get(ctx, "s", "n", "k"); err != nil || !ok || string(v) != "2" {
		t.Fatalf("a after reopening: %q %v %v", v, ok, err)
	}
}

func TestBoltReadsOfAFileNotYetWrittenCreateNothing(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "sessions.db")
	s := openBolt(t, path)
	defer s.Close()
	if _, ok, err := s.Get(t.Context(), "s", "n", "k"); ok || err != nil {
		t.Fatalf("get = %v %v", ok, err)
	}
	if kvs, err := s.List(t.Context(), "s", "n"); len(kvs) != 0 || err != nil {
		t.Fatalf("list = %v %v", kvs, err)
	}
	if err := s.DeleteSession(t.Context(), "s"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("reads created the database file: %v", err)
	}
}

func TestBoltKeepsKeysWrittenBeforeTheKeyEncoding(t *testing.T) {
	t.Parallel()
	// Ordinary keys are stored as they are, so databases written before
	// the empty key was supported read the same.
	path := filepath.Join(t.TempDir(), "sessions.db")
	s := openBolt(t, path)
	if err := session.Put(t.Context(), s, "s", "filetime", "/abs/path", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if err := session.Put(t.Context(), s, "s", "filetime", "", []byte("empty")); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	raw := rawKeys(t, path, "s", "filetime")
	if fmt.Sprintf("%q", raw) != `["\x00" "/abs/path"]` {
		t.Errorf("raw keys = %q", raw)
	}
}

// rawKeys reads a namespace's keys with bbolt itself, as stored on disk.
func rawKeys(t *testing.T, path, sessionID, ns string) []string {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var out []string
	err = db.View(func(tx *bolt.Tx) error {
		return tx.Bucket([]byte(sessionID)).Bucket([]byte(ns)).ForEach(func(k, _ []byte) error {
			out = append(out, string(k))
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestMemoryNotifiesWithinTheProcess(t *testing.T) {
	t.Parallel()
	sessiontest.RunNotifier(t, func(*testing.T) (session.Notifier, session.Notifier) {
		m := session.NewMemory()
		return m, m
	})
}
