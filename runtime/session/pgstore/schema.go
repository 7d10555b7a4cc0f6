package pgstore

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Migrations as a job of their own. A deployment that gives its replicas a
// role without CREATE runs Migrate — `toolhost migrate`, a Kubernetes Job,
// a Helm pre-upgrade hook — as a role that may create, and starts the
// replicas with Options.NoMigrate. Migrate creates the schema the URL's
// search_path names, applies the migrations under the same advisory lock
// as Open, and can grant a replica's role what it needs.

// MigrateOptions configure Migrate.
type MigrateOptions struct {
	// Grant names roles given what a replica needs on the schema: USAGE,
	// and SELECT, INSERT, UPDATE, DELETE on its tables, now and on the
	// tables later migrations (run by the same role) create.
	Grant []string
	// StartWait is how long to keep trying while the database cannot be
	// reached, as Options.StartWait.
	StartWait time.Duration
}

// MigrateResult says what Migrate did.
type MigrateResult struct {
	Addr     string // host:port/database
	Schema   string // where the tables are: current_schema() after migrating
	From, To int    // schema versions before and after
}

// Migrate creates the schema named first in url's search_path when it does
// not exist, brings toolhost's tables to this binary's version and grants
// opts.Grant their privileges. Running it again changes nothing.
func Migrate(ctx context.Context, url string, opts MigrateOptions) (MigrateResult, error) {
	cfg, err := parseURL(url, "store")
	if err != nil {
		return MigrateResult{}, err
	}
	cfg.MaxConns = 1
	s := &Store{addr: addrOf(cfg.ConnConfig)}
	res := MigrateResult{Addr: s.addr}
	all, err := migrations()
	if err != nil {
		return res, err
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return res, s.wrap("connect", err)
	}
	defer pool.Close()
	err = s.untilReachable(ctx, opts.StartWait, func() (err error) {
		res.From, res.To, err = migrate(ctx, pool, all, schemaOf(cfg.ConnConfig))
		return err
	})
	if err != nil {
		return res, s.startError(opts.StartWait, "migrate", err)
	}
	if err := pool.QueryRow(ctx, `SELECT current_schema()`).Scan(&res.Schema); err != nil {
		return res, s.wrap("read the schema", err)
	}
	for _, role := range opts.Grant {
		if err := grant(ctx, pool, res.Schema, role); err != nil {
			return res, s.wrap("grant "+role, err)
		}
	}
	return res, nil
}

// grant gives role what a replica running with NoMigrate needs.
func grant(ctx context.Context, pool *pgxpool.Pool, schema, role string) error {
	if role == "" {
		return fmt.Errorf("empty role name")
	}
	sc, r := pgx.Identifier{schema}.Sanitize(), pgx.Identifier{role}.Sanitize()
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		for _, q := range []string{
			`GRANT USAGE ON SCHEMA ` + sc + ` TO ` + r,
			`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA ` + sc + ` TO ` + r,
			`ALTER DEFAULT PRIVILEGES IN SCHEMA ` + sc + ` GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO ` + r,
		} {
			if _, err := tx.Exec(ctx, q); err != nil {
				return err
			}
		}
		return nil
	})
}

// createSchema creates schema when it does not exist. It looks first, so
// that a role without CREATE on the database migrates a schema that is
// already there.
func createSchema(ctx context.Context, tx pgx.Tx, schema string) error {
	if schema == "" {
		return nil
	}
	var exists bool
	if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)`, schema).Scan(&exists); err != nil {
		return fmt.Errorf("look for schema %q: %w", schema, err)
	}
	if exists {
		return nil
	}
	if _, err := tx.Exec(ctx, `CREATE SCHEMA IF NOT EXISTS `+pgx.Identifier{schema}.Sanitize()); err != nil {
		return fmt.Errorf("create schema %q (named by search_path): %w", schema, err)
	}
	return nil
}

// maxIdentifier is PostgreSQL's identifier length (NAMEDATALEN-1 bytes);
// longer names are truncated by the server.
const maxIdentifier = 63

// schemaOf is the schema search_path names first, as PostgreSQL reads it:
// unquoted names folded to lower case, quoted ones kept ("" inside quotes
// is one quote), both truncated to 63 bytes. "" when search_path is unset,
// empty, or starts with $user (a role's own schema, left to the operator).
func schemaOf(cc *pgx.ConnConfig) string {
	sp, ok := cc.RuntimeParams["search_path"]
	if !ok {
		return ""
	}
	name, ok := firstIdentifier(sp)
	if !ok || name == "$user" {
		return ""
	}
	if len(name) > maxIdentifier {
		name = name[:maxIdentifier]
	}
	return name
}

// firstIdentifier reads the first entry of a comma-separated identifier
// list (PostgreSQL's SplitIdentifierString).
func firstIdentifier(list string) (string, bool) {
	s := strings.TrimLeft(list, " \t\n\r")
	if s == "" {
		return "", false
	}
	if s[0] == '"' {
		var b strings.Builder
		for i := 1; i < len(s); i++ {
			if s[i] != '"' {
				b.WriteByte(s[i])
				continue
			}
			if i+1 < len(s) && s[i+1] == '"' {
				b.WriteByte('"')
				i++
				continue
			}
			return b.String(), b.Len() > 0
		}
		return "", false // an unterminated quote: PostgreSQL refuses it too
	}
	name, _, _ := strings.Cut(s, ",")
	name = strings.TrimRight(name, " \t\n\r")
	if name == "" || strings.ContainsAny(name, "\" \t") {
		return "", false
	}
	return strings.Map(func(r rune) rune {
		if r >= 'A' && r <= 'Z' {
			return r + ('a' - 'A')
		}
		return r
	}, name), true
}
