package pgstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Options configure OpenWith. The zero value is Open's behaviour.
type Options struct {
	// NoMigrate leaves the schema to `toolhost migrate` (Migrate): Open
	// only checks that the schema is at the version this binary needs and
	// refuses with "run toolhost migrate" when it is behind. A replica
	// then needs no CREATE privilege, only USAGE on the schema and SELECT,
	// INSERT, UPDATE, DELETE on its tables. Without it, Open migrates a
	// schema that is behind (and creates the schema search_path names),
	// which needs CREATE; a schema already current needs nothing more.
	NoMigrate bool

	// ListenURL, when set, is the connection LISTEN uses instead of the
	// pool's URL. Behind PgBouncer in transaction pooling, URL goes
	// through PgBouncer and ListenURL to PostgreSQL itself (or to a
	// session-pooling PgBouncer): a LISTEN holds its server connection
	// for the process's life, which transaction pooling cannot give.
	ListenURL string

	// StartWait is how long Open keeps trying when the database cannot be
	// reached at start, with backoff from 100 ms to 5 s. Zero: one try.
	// After it, Open fails with an error saying toolhost is exiting and
	// what to do; it never claims that the process will reconnect.
	StartWait time.Duration

	// Retention, when positive, deletes the state of sessions with no
	// write for that long, by a sweep every SweepEvery (sweep.go). Zero:
	// nothing is deleted.
	Retention time.Duration
	// SweepEvery is the period of the retention sweep. Default
	// min(Retention/4, 10 minutes), at least a second.
	SweepEvery time.Duration
}

// Open connects to the database at url (postgres://user:pass@host:port/db,
// or the key=value form; pgx reads PG* environment variables for what the
// URL leaves out) and brings its schema up to date. The database must be
// reachable now; afterwards the pool reconnects by itself, and calls made
// while the database is down fail with an error saying so.
//
// Query parameters that are not connection settings become session
// settings, so "?search_path=toolhost" keeps the tables in a schema of
// their own, created when missing. Pool settings are pgxpool's URL
// parameters: pool_max_conns (default the larger of 4 and the CPUs),
// pool_min_conns, pool_max_conn_lifetime, pool_max_conn_idle_time.
func Open(ctx context.Context, url string) (*Store, error) {
	return OpenWith(ctx, url, Options{})
}

// OpenWith is Open with options.
func OpenWith(ctx context.Context, url string, opts Options) (*Store, error) {
	cfg, err := parseURL(url, "store")
	if err != nil {
		return nil, err
	}
	// A dead connection is found by a ping before it is handed out
	// rather than by the call that uses it; the URL may say otherwise.
	if !strings.Contains(url, "pool_health_check_period") {
		cfg.HealthCheckPeriod = 10 * time.Second
	}
	s := &Store{addr: addrOf(cfg.ConnConfig)}
	s.listen.store = s
	s.listen.connConfig = cfg.ConnConfig.Copy()
	if opts.ListenURL != "" {
		lcfg, err := parseURL(opts.ListenURL, "listen")
		if err != nil {
			return nil, err
		}
		// The listener's connection keeps the pool's session settings
		// (search_path) unless its own URL sets them.
		lc := lcfg.ConnConfig.Copy()
		for k, v := range cfg.ConnConfig.RuntimeParams {
			if _, ok := lc.RuntimeParams[k]; !ok {
				lc.RuntimeParams[k] = v
			}
		}
		s.listen.connConfig = lc
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, s.startError(opts.StartWait, "connect", err)
	}
	s.pool = pool
	all, err := migrations()
	if err != nil {
		pool.Close()
		return nil, err
	}
	if err := s.prepareSchema(ctx, cfg.ConnConfig, all, opts); err != nil {
		pool.Close()
		return nil, err
	}
	if opts.Retention > 0 {
		s.sweep.start(s, opts.Retention, opts.SweepEvery)
	}
	return s, nil
}

// parseURL parses a store URL without ever quoting it: pgx's message may
// hold the password.
func parseURL(url, what string) (*pgxpool.Config, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("session store: the %s URL is not a PostgreSQL connection string; want postgres://user:password@host:5432/database", what)
	}
	return cfg, nil
}

func addrOf(c *pgx.ConnConfig) string {
	return fmt.Sprintf("%s:%d/%s", c.Host, c.Port, c.Database)
}

// prepareSchema reads the schema's version, waiting for the database up to
// opts.StartWait, and migrates it when behind and allowed to.
func (s *Store) prepareSchema(ctx context.Context, cc *pgx.ConnConfig, all []migration, opts Options) error {
	var version int
	err := s.untilReachable(ctx, opts.StartWait, func() (err error) {
		version, err = schemaVersion(ctx, s.pool)
		return err
	})
	if err != nil {
		return s.startError(opts.StartWait, "read the schema version", err)
	}
	switch {
	case version > len(all):
		return s.wrap("migrate", newerSchema(version, len(all)))
	case version == len(all):
		return nil
	case opts.NoMigrate:
		return &SchemaBehindError{Addr: s.addr, Schema: schemaOf(cc), Have: version, Want: len(all)}
	}
	if _, _, err := migrate(ctx, s.pool, all, schemaOf(cc)); err != nil {
		return s.startError(opts.StartWait, "migrate", err)
	}
	return nil
}

// untilReachable runs op until it succeeds, fails other than by the
// database being unreachable, or wait has passed.
func (s *Store) untilReachable(ctx context.Context, wait time.Duration, op func() error) error {
	deadline := time.Now().Add(wait)
	backoff := 100 * time.Millisecond
	for {
		err := op()
		left := time.Until(deadline)
		if err == nil || !unreachable(err) || ctx.Err() != nil || left <= 0 {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(min(backoff, left)):
		}
		backoff = min(backoff*2, 5*time.Second)
	}
}

// startError words a failure of Open. An unreachable database at start
// ends the process — the pool's reconnecting applies only once it is
// open — so the message says that and what to do, rather than the
// "reconnects by itself" of a call made later.
func (s *Store) startError(wait time.Duration, op string, err error) error {
	if !unreachable(err) {
		return s.wrap(op, err)
	}
	tried := "at start"
	if wait > 0 {
		tried = fmt.Sprintf("at start (tried for %s)", wait)
	}
	return fmt.Errorf("session store %s: %s: %w: %w; not reachable %s, so toolhost stops here: start PostgreSQL or correct the store URL, then start toolhost again (under Kubernetes the pod is restarted and waits again)", s.addr, op, ErrUnavailable, err, tried)
}

// SchemaBehindError is Open's refusal, with migrations at start off, of a
// database whose schema is older than this binary's.
type SchemaBehindError struct {
	Addr       string
	Schema     string // "" when search_path names none
	Have, Want int
}

func (e *SchemaBehindError) Error() string {
	if e.Have == 0 {
		where := ""
		if e.Schema != "" {
			where = fmt.Sprintf(" in schema %q", e.Schema)
		}
		return fmt.Sprintf("session store %s: the database has no toolhost tables%s and migrations at start are off: run `toolhost migrate` (as a role that may create them), then start toolhost again", e.Addr, where)
	}
	schema := "schema"
	if e.Schema != "" {
		schema = fmt.Sprintf("schema %q", e.Schema)
	}
	return fmt.Sprintf("session store %s: the %s is at version %d and this toolhost needs %d, and migrations at start are off: run `toolhost migrate` (as a role that may create tables), then start toolhost again", e.Addr, schema, e.Have, e.Want)
}

// ErrSchemaBehind is matched (errors.Is) by a *SchemaBehindError.
var ErrSchemaBehind = errors.New("session store schema behind")

// Is makes errors.Is(err, ErrSchemaBehind) true.
func (e *SchemaBehindError) Is(target error) bool { return target == ErrSchemaBehind }
