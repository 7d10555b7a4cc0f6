package pgstore_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/runtime/session"
	"github.com/toolhost/toolhost/runtime/session/pgstore"
)

// withParam adds a query parameter to a pgtest URL (which has one).
func withParam(url, kv string) string { return url + "&" + kv }

// asRole is url with the user replaced: pgtest's server trusts every
// loopback login, so the role needs no password.
func asRole(url, role string) string {
	return strings.Replace(url, "postgres://postgres@", "postgres://"+role+"@", 1)
}

func exec(t *testing.T, url string, sql ...string) {
	t.Helper()
	conn := connect(t, url)
	for _, q := range sql {
		if _, err := conn.Exec(t.Context(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

func TestMigrateCreatesTheSchemaTheSearchPathNamesInAFreshDatabase(t *testing.T) {
	t.Parallel()
	url := withParam(pg.Database(t), "search_path=Toolhost_Custom")
	res, err := pgstore.Migrate(t.Context(), url, pgstore.MigrateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Unquoted, PostgreSQL folds the name to lower case.
	if res.Schema != "toolhost_custom" || res.From != 0 || res.To < 1 {
		t.Fatalf("migrate = %+v; want schema toolhost_custom from 0 to the newest version", res)
	}
	var where string
	if err := connect(t, url).QueryRow(t.Context(), `SELECT table_schema FROM information_schema.tables WHERE table_name = 'toolhost_session_state'`).Scan(&where); err != nil {
		t.Fatal(err)
	}
	if where != "toolhost_custom" {
		t.Errorf("the state table is in schema %q; want toolhost_custom", where)
	}
	again, err := pgstore.Migrate(t.Context(), url, pgstore.MigrateOptions{})
	if err != nil || again.From != res.To || again.To != res.To {
		t.Errorf("migrating again = %+v, %v; want nothing to do at version %d", again, err, res.To)
	}
	s := open(t, url)
	if err := session.Put(t.Context(), s, "s", "n", "k", []byte("v")); err != nil {
		t.Fatal(err)
	}
}

func TestOpenCreatesAMissingSearchPathSchemaWhenItMigrates(t *testing.T) {
	t.Parallel()
	s := open(t, withParam(pg.Database(t), "search_path=fresh_schema"))
	if err := session.Put(t.Context(), s, "s", "n", "k", []byte("v")); err != nil {
		t.Fatal(err)
	}
}

func TestHostileSchemaNamesAreCreatedAsNamesNotRunAsSQL(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ path, want string }{
		{`"x; DROP TABLE pg_class; --"`, `x; DROP TABLE pg_class; --`},
		{`"q""uote", public`, `q"uote`},
		{`"Robert'); DROP SCHEMA public CASCADE; --"`, `Robert'); DROP SCHEMA public CASCADE; --`},
	} {
		url := pg.Database(t)
		res, err := pgstore.Migrate(t.Context(), withParam(url, "search_path="+urlEscape(c.path)), pgstore.MigrateOptions{})
		if err != nil {
			t.Fatalf("migrate with search_path %s: %v", c.path, err)
		}
		if res.Schema != c.want {
			t.Errorf("search_path %s: tables in %q; want %q", c.path, res.Schema, c.want)
		}
		var public bool
		if err := connect(t, url).QueryRow(t.Context(), `SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = 'public')`).Scan(&public); err != nil || !public {
			t.Errorf("search_path %s: schema public gone (%v)", c.path, err)
		}
	}
}

func urlEscape(s string) string {
	r := strings.NewReplacer("%", "%25", " ", "%20", `"`, "%22", ";", "%3B", "'", "%27", "&", "%26", "#", "%23", ",", "%2C")
	return r.Replace(s)
}

// TestAReplicaRoleWithoutCreateRunsOnAMigratedSchema is the deployment
// with a migrate job: the replicas' role may not create anything.
func TestAReplicaRoleWithoutCreateRunsOnAMigratedSchema(t *testing.T) {
	t.Parallel()
	admin := withParam(pg.Database(t), "search_path=th")
	role := "app_" + strings.TrimPrefix(admin[strings.LastIndex(admin, "/")+1:strings.Index(admin, "?")], "t")
	exec(t, admin, `CREATE ROLE `+role+` LOGIN`)
	app := asRole(admin, role)

	// Before the migrate job: the replica says what to run.
	_, err := pgstore.OpenWith(t.Context(), app, pgstore.Options{NoMigrate: true})
	if !errors.Is(err, pgstore.ErrSchemaBehind) || !strings.Contains(err.Error(), "run `toolhost migrate`") || !strings.Contains(err.Error(), `no toolhost tables in schema "th"`) {
		t.Fatalf("open before migrating = %v; want a refusal saying to run toolhost migrate", err)
	}
	// Migrating at start with this role fails: it may not create the schema.
	if _, err := pgstore.Open(t.Context(), app); err == nil || !strings.Contains(err.Error(), "permission denied") {
		t.Fatalf("open migrating as a role without CREATE = %v; want permission denied", err)
	}
	if _, err := pgstore.Migrate(t.Context(), app, pgstore.MigrateOptions{}); err == nil {
		t.Fatal("toolhost migrate as a role without CREATE succeeded")
	}

	res, err := pgstore.Migrate(t.Context(), admin, pgstore.MigrateOptions{Grant: []string{role}})
	if err != nil {
		t.Fatal(err)
	}
	for _, opts := range []pgstore.Options{{NoMigrate: true}, {}} {
		s, err := pgstore.OpenWith(t.Context(), app, opts)
		if err != nil {
			t.Fatalf("open as the replica role after migrating to %d (%+v): %v", res.To, opts, err)
		}
		if err := session.Put(t.Context(), s, "s", "n", "k", []byte("v")); err != nil {
			t.Fatal(err)
		}
		if v, ok, err := s.Get(t.Context(), "s", "n", "k"); err != nil || !ok || string(v) != "v" {
			t.Fatalf("get = %q, %v, %v", v, ok, err)
		}
		if err := s.DeleteSession(t.Context(), "s"); err != nil {
			t.Fatal(err)
		}
		s.Close()
	}
}

func TestAnEmptyDatabaseWithMigrationsOffIsRefusedWithTheRemedy(t *testing.T) {
	t.Parallel()
	_, err := pgstore.OpenWith(t.Context(), pg.Database(t), pgstore.Options{NoMigrate: true})
	var behind *pgstore.SchemaBehindError
	if !errors.As(err, &behind) || behind.Have != 0 || behind.Want < 1 {
		t.Fatalf("open = %v; want a *SchemaBehindError from version 0", err)
	}
}

func TestAnUnreachableDatabaseAtStartIsRetriedThenReportedAsAnExit(t *testing.T) {
	t.Parallel()
	start := time.Now()
	_, err := pgstore.OpenWith(t.Context(), "postgres://u:s3cret@127.0.0.1:1/db?connect_timeout=2", pgstore.Options{StartWait: 1500 * time.Millisecond})
	if took := time.Since(start); took < time.Second {
		t.Errorf("open gave up after %s; want it to keep trying for about 1.5s", took)
	}
	if !errors.Is(err, pgstore.ErrUnavailable) {
		t.Fatalf("open = %v; want ErrUnavailable", err)
	}
	msg := err.Error()
	for _, want := range []string{"tried for 1.5s", "toolhost stops here", "start PostgreSQL or correct the store URL"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not say %q", msg, want)
		}
	}
	if strings.Contains(msg, "reconnects by itself") || strings.Contains(msg, "s3cret") {
		t.Errorf("error %q claims a reconnect that will not happen, or leaks the password", msg)
	}
}

func TestTheListenerUsesItsOwnURL(t *testing.T) {
	t.Parallel()
	url := pg.Database(t)
	s, err := pgstore.OpenWith(t.Context(), withParam(url, "application_name=th_pool"), pgstore.Options{ListenURL: withParam(url, "application_name=th_listen")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	heard := make(chan string, 4)
	if err := s.Listen(t.Context(), "c", func(p string) { heard <- p }); err != nil {
		t.Fatal(err)
	}
	var app string
	if err := connect(t, url).QueryRow(t.Context(), `SELECT application_name FROM pg_stat_activity WHERE query LIKE 'LISTEN %'`).Scan(&app); err != nil {
		t.Fatal(err)
	}
	if app != "th_listen" {
		t.Errorf("LISTEN runs on the connection named %q; want th_listen", app)
	}
	if err := s.Notify(t.Context(), "c", "hi"); err != nil {
		t.Fatal(err)
	}
	for p := ""; p != "hi"; {
		select {
		case p = <-heard:
		case <-time.After(10 * time.Second):
			t.Fatal("the notification did not arrive through the listen URL's connection")
		}
	}
	if _, err := pgstore.OpenWith(t.Context(), url, pgstore.Options{ListenURL: "mysql://u:s3cret@x/y"}); err == nil || strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), "listen URL") {
		t.Errorf("open with a bad listen URL = %v; want a refusal naming it without the password", err)
	}
}

func TestPoolStatReportsTheURLsPoolSize(t *testing.T) {
	t.Parallel()
	s := open(t, withParam(pg.Database(t), "pool_max_conns=3"))
	if err := session.Put(t.Context(), s, "s", "n", "k", []byte("v")); err != nil {
		t.Fatal(err)
	}
	st := s.PoolStat()
	if st.Max != 3 || st.Total < 1 || st.Acquires < 1 {
		t.Errorf("pool stat = %+v; want max 3 and the connection just used", st)
	}
}

func TestASchemaBehindNamesBothVersionsAndTheRemedy(t *testing.T) {
	t.Parallel()
	err := error(&pgstore.SchemaBehindError{Addr: "db:5432/toolhost", Schema: "th", Have: 1, Want: 2})
	for _, want := range []string{`schema "th" is at version 1 and this toolhost needs 2`, "run `toolhost migrate`"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not say %q", err, want)
		}
	}
	if !errors.Is(err, pgstore.ErrSchemaBehind) {
		t.Error("not ErrSchemaBehind")
	}
}
