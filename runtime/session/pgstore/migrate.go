package pgstore

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// migrationLock is the advisory lock key every toolhost replica takes
// while it migrates: the first 8 bytes of "toolhost" as an int64. Advisory
// locks are per database, so replicas on other databases do not wait.
const migrationLock int64 = 0x746f6f6c686f7374

// migration is one versioned SQL file, NNNN_name.sql.
type migration struct {
	version int
	name    string
	sql     string
}

// migrations returns the embedded migrations in version order, refusing
// gaps and duplicates: a version missing from the sequence would leave a
// database the code never tested.
func migrations() ([]migration, error) {
	return parseMigrations(migrationFiles, "migrations")
}

func parseMigrations(fsys fs.FS, dir string) ([]migration, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("session store migrations: %w", err)
	}
	var out []migration
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".sql") {
			continue
		}
		num, _, ok := strings.Cut(name, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 || len(num) != 4 {
			return nil, fmt.Errorf("session store migration %s: name must be NNNN_what.sql with NNNN from 0001", name)
		}
		b, err := fs.ReadFile(fsys, path.Join(dir, name))
		if err != nil {
			return nil, fmt.Errorf("session store migration %s: %w", name, err)
		}
		out = append(out, migration{version: v, name: name, sql: string(b)})
	}
	slices.SortFunc(out, func(a, b migration) int { return a.version - b.version })
	for i, m := range out {
		if m.version != i+1 {
			return nil, fmt.Errorf("session store migration %s: version %d, want %d: versions run from 1 without gaps or repeats", m.name, m.version, i+1)
		}
	}
	return out, nil
}

// migrate brings the database's schema to the newest embedded version in
// one transaction holding migrationLock, first creating schema (the first
// entry of search_path; "" for none) when it does not exist, and returns
// the versions before and after.
func migrate(ctx context.Context, pool *pgxpool.Pool, all []migration, schema string) (from, to int, err error) {
	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		// The transaction-scoped lock is released by commit, rollback or
		// the connection dying, so a replica killed while migrating
		// cannot keep the others waiting.
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, migrationLock); err != nil {
			return fmt.Errorf("take the migration lock: %w", err)
		}
		if err := createSchema(ctx, tx, schema); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS toolhost_schema_migrations (
			version    integer     PRIMARY KEY,
			name       text        NOT NULL,
			applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
			return fmt.Errorf("create the migrations table: %w", err)
		}
		if err := tx.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM toolhost_schema_migrations`).Scan(&from); err != nil {
			return fmt.Errorf("read the schema version: %w", err)
		}
		to = from
		if from > len(all) {
			return newerSchema(from, len(all))
		}
		for _, m := range all[from:] {
			if _, err := tx.Exec(ctx, m.sql); err != nil {
				return fmt.Errorf("apply %s: %w", m.name, err)
			}
			if _, err := tx.Exec(ctx, `INSERT INTO toolhost_schema_migrations (version, name) VALUES ($1, $2)`, m.version, m.name); err != nil {
				return fmt.Errorf("record %s: %w", m.name, err)
			}
			to = m.version
		}
		return nil
	})
	return from, to, err
}

func newerSchema(have, know int) error {
	return fmt.Errorf("the database's schema is at version %d, newer than this toolhost knows (%d); upgrade toolhost or point it at another database", have, know)
}

// schemaVersion reads the schema's version without writing anything, so a
// replica whose role may not create tables can start on a current schema;
// a database without toolhost's tables is at version 0.
func schemaVersion(ctx context.Context, pool *pgxpool.Pool) (int, error) {
	var v int
	err := retry(ctx, func() error {
		return pool.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM toolhost_schema_migrations`).Scan(&v)
	})
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && (pgErr.Code == "42P01" || pgErr.Code == "3F000") { // undefined_table, invalid_schema_name
		return 0, nil
	}
	return v, err
}
