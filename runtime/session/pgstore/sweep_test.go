package pgstore_test

import (
	"sync"
	"testing"
	"time"

	"github.com/toolhost/toolhost/runtime/session"
	"github.com/toolhost/toolhost/runtime/session/pgstore"
)

// age makes a session's rows (or one key's) look written d ago.
func age(t *testing.T, url, sessionID, key string, d time.Duration) {
	t.Helper()
	q := `UPDATE toolhost_session_state SET updated_at = now() - make_interval(secs => $2) WHERE session = $1`
	args := []any{[]byte(sessionID), d.Seconds()}
	if key != "" {
		q += ` AND key = $3`
		args = append(args, []byte(key))
	}
	if _, err := connect(t, url).Exec(t.Context(), q, args...); err != nil {
		t.Fatal(err)
	}
}

func keys(t *testing.T, s session.Store, sessionID, ns string) []string {
	t.Helper()
	kvs, err := s.List(t.Context(), sessionID, ns)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, kv := range kvs {
		out = append(out, kv.Key)
	}
	return out
}

func put(t *testing.T, s session.Store, sessionID, ns, key string) {
	t.Helper()
	if err := session.Put(t.Context(), s, sessionID, ns, key, []byte("v")); err != nil {
		t.Fatal(err)
	}
}

func TestTheSweepForgetsIdleSessionsWholeAndKeepsActiveOnesWhole(t *testing.T) {
	t.Parallel()
	url := pg.Database(t)
	s := open(t, url)
	s.SweepRowsOf("bookkeeping")
	for _, k := range []string{"a", "b"} {
		put(t, s, "idle", "todo", k)
		put(t, s, "active", "todo", k)
		put(t, s, "bookkeeping", "answer", k)
	}
	age(t, url, "idle", "", 2*time.Hour)
	// One old row in an active session: the session is not idle, so
	// its old approval stays with it.
	age(t, url, "active", "a", 2*time.Hour)
	// Bookkeeping rows expire one by one.
	age(t, url, "bookkeeping", "a", 2*time.Hour)

	n, err := s.Sweep(t.Context(), time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if n != 3 {
		t.Errorf("swept %d rows; want 3 (idle's two, bookkeeping's old one)", n)
	}
	if got := keys(t, s, "idle", "todo"); len(got) != 0 {
		t.Errorf("idle session kept %v", got)
	}
	if got := keys(t, s, "active", "todo"); len(got) != 2 {
		t.Errorf("active session kept %v; want both keys", got)
	}
	if got := keys(t, s, "bookkeeping", "answer"); len(got) != 1 || got[0] != "b" {
		t.Errorf("bookkeeping kept %v; want only its fresh row b", got)
	}
	if n, err := s.Sweep(t.Context(), time.Hour); n != 0 || err != nil {
		t.Errorf("a second sweep = %d, %v; want nothing left to delete", n, err)
	}
}

func TestReplicasSweepingAtOnceDeleteEachRowOnce(t *testing.T) {
	t.Parallel()
	url := pg.Database(t)
	stores := []*pgstore.Store{open(t, url), open(t, url), open(t, url)}
	const sessions = 300
	for i := range sessions {
		put(t, stores[i%3], "s"+string(rune('a'+i%26))+time.Duration(i).String(), "n", "k")
	}
	exec(t, url, `UPDATE toolhost_session_state SET updated_at = now() - interval '2 hours'`)
	var wg sync.WaitGroup
	counts := make([]int64, len(stores))
	for i, s := range stores {
		wg.Go(func() {
			n, err := s.Sweep(t.Context(), time.Hour)
			if err != nil {
				t.Error(err)
			}
			counts[i] = n
		})
	}
	wg.Wait()
	total := counts[0] + counts[1] + counts[2]
	var left int
	if err := connect(t, url).QueryRow(t.Context(), `SELECT count(*) FROM toolhost_session_state`).Scan(&left); err != nil {
		t.Fatal(err)
	}
	// A replica that found the sweep lock taken skipped its round, so
	// rows may be left for the next round, but none is counted twice.
	if total+int64(left) != sessions {
		t.Errorf("swept %v (total %d) with %d left; want %d rows accounted for once", counts, total, left, sessions)
	}
	if n, _ := stores[0].Sweep(t.Context(), time.Hour); total+n != sessions {
		t.Errorf("after a last sweep %d of %d rows were deleted", total+n, sessions)
	}
}

func TestASweepFindingAnotherReplicaSweepingSkipsItsRound(t *testing.T) {
	t.Parallel()
	url := pg.Database(t)
	s := open(t, url)
	put(t, s, "old", "n", "k")
	age(t, url, "old", "", 2*time.Hour)
	conn := connect(t, url)
	tx, err := conn.Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(t.Context())
	if _, err := tx.Exec(t.Context(), `SELECT pg_advisory_xact_lock($1)`, int64(0x746f6f6c73776570)); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if n, err := s.Sweep(t.Context(), time.Hour); n != 0 || err != nil || time.Since(start) > 5*time.Second {
		t.Fatalf("sweep while another holds the lock = %d, %v after %s; want 0 at once", n, err, time.Since(start))
	}
	if got := keys(t, s, "old", "n"); len(got) != 1 {
		t.Fatalf("the old session went while another replica held the sweep: %v", got)
	}
}

func TestTheStoreSweepsOnItsOwnTimer(t *testing.T) {
	t.Parallel()
	url := pg.Database(t)
	seed := open(t, url)
	put(t, seed, "old", "n", "k")
	age(t, url, "old", "", 2*time.Hour)
	s, err := pgstore.OpenWith(t.Context(), url, pgstore.Options{Retention: time.Hour, SweepEvery: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	deadline := time.Now().Add(15 * time.Second)
	for len(keys(t, s, "old", "n")) > 0 {
		if time.Now().After(deadline) {
			t.Fatal("the idle session was not swept within 15s with a sweep every second")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestASweepWithoutARetentionIsRefused(t *testing.T) {
	t.Parallel()
	s := open(t, pg.Database(t))
	if _, err := s.Sweep(t.Context(), 0); err == nil {
		t.Fatal("sweep with a zero retention deleted everything older than now")
	}
}
