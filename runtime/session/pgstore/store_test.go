package pgstore_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/toolhost/toolhost/runtime/session"
	"github.com/toolhost/toolhost/runtime/session/pgstore"
	"github.com/toolhost/toolhost/runtime/session/pgstore/pgtest"
	"github.com/toolhost/toolhost/runtime/session/sessiontest"
)

var pg pgtest.Shared

func TestMain(m *testing.M) { os.Exit(pg.Main(m)) }

func open(t *testing.T, url string) *pgstore.Store {
	t.Helper()
	s, err := pgstore.Open(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func TestPostgresKeepsTheStoreContract(t *testing.T) {
	t.Parallel()
	sessiontest.Run(t, func(t *testing.T) session.Store { return open(t, pg.Database(t)) })
}

func TestTwoPostgresHandlesOnOneDatabaseShareTheStore(t *testing.T) {
	t.Parallel()
	sessiontest.RunShared(t, func(t *testing.T) (session.Store, session.Store) {
		url := pg.Database(t)
		return open(t, url), open(t, url)
	})
}

func TestReplicasStartingTogetherMigrateOnce(t *testing.T) {
	t.Parallel()
	url := pg.Database(t)
	const replicas = 8
	var wg sync.WaitGroup
	errs := make(chan error, replicas)
	for range replicas {
		wg.Go(func() {
			s, err := pgstore.Open(t.Context(), url)
			if err == nil {
				err = session.Put(t.Context(), s, "s", "n", "k", []byte("v"))
				s.Close()
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	conn := connect(t, url)
	var n, max int
	if err := conn.QueryRow(t.Context(), `SELECT count(*), max(version) FROM toolhost_schema_migrations`).Scan(&n, &max); err != nil {
		t.Fatal(err)
	}
	if n != max || n < 1 {
		t.Errorf("migrations table has %d rows up to version %d; want each version once", n, max)
	}
}

func connect(t *testing.T, url string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

func TestADatabaseWithANewerSchemaIsRefused(t *testing.T) {
	t.Parallel()
	url := pg.Database(t)
	open(t, url).Close()
	if _, err := connect(t, url).Exec(t.Context(), `INSERT INTO toolhost_schema_migrations (version, name) VALUES (999, '0999_future.sql')`); err != nil {
		t.Fatal(err)
	}
	_, err := pgstore.Open(t.Context(), url)
	if err == nil || !strings.Contains(err.Error(), "version 999, newer than this toolhost knows") {
		t.Fatalf("Open on a newer schema = %v; want a refusal naming the version", err)
	}
}

func TestOpenRefusesBadURLsWithoutEchoingThem(t *testing.T) {
	t.Parallel()
	for _, url := range []string{
		"postgres://user:s3cret@host:notaport/db",
		"mysql://user:s3cret@host/db",
		"postgres://user:s3cret@[::1/db",
		"host=x port=s3cret",
	} {
		_, err := pgstore.Open(t.Context(), url)
		if err == nil {
			t.Errorf("Open(%q) succeeded", url)
			continue
		}
		if strings.Contains(err.Error(), "s3cret") {
			t.Errorf("Open(%q) error leaks the URL: %v", url, err)
		}
	}
}

func TestAnUnreachableDatabaseIsReportedAsUnavailable(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	// Port 1 on loopback: nothing listens there.
	_, err := pgstore.Open(ctx, "postgres://u:s3cret@127.0.0.1:1/db?connect_timeout=5")
	if !errors.Is(err, pgstore.ErrUnavailable) {
		t.Fatalf("Open on a closed port = %v; want ErrUnavailable", err)
	}
	if strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), "start PostgreSQL or correct the store URL") {
		t.Errorf("error %q should give a remedy and no password", err)
	}
}

func TestNamesTooLongForTheIndexAreRefused(t *testing.T) {
	t.Parallel()
	s := open(t, pg.Database(t))
	long := strings.Repeat("s", 2000)
	err := session.Put(t.Context(), s, long, "n", strings.Repeat("k", 1000), []byte("v"))
	if err == nil || !strings.Contains(err.Error(), "use shorter ids") {
		t.Fatalf("put with 3000 bytes of names = %v; want a refusal", err)
	}
	// The contract's longest key with an ordinary id still fits.
	if err := session.Put(t.Context(), s, "session-id", "namespace", strings.Repeat("\xff", 1024), []byte("v")); err != nil {
		t.Fatal(err)
	}
}

func TestValuesAreStoredAsBytesAndSurviveSQLInKeys(t *testing.T) {
	t.Parallel()
	url := pg.Database(t)
	s := open(t, url)
	key := "k'); DROP TABLE toolhost_session_state; --"
	if err := session.Put(t.Context(), s, "s", "n", key, []byte("\x00\xff")); err != nil {
		t.Fatal(err)
	}
	var v []byte
	if err := connect(t, url).QueryRow(t.Context(), `SELECT value FROM toolhost_session_state WHERE key = $1`, []byte(key)).Scan(&v); err != nil {
		t.Fatal(err)
	}
	if string(v) != "\x00\xff" {
		t.Errorf("stored %q", v)
	}
}

func TestPostgresNotifiesAcrossHandles(t *testing.T) {
	t.Parallel()
	sessiontest.RunNotifier(t, func(t *testing.T) (session.Notifier, session.Notifier) {
		url := pg.Database(t)
		return open(t, url), open(t, url)
	})
}
