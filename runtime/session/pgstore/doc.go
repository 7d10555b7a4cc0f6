// Package pgstore is a session.Store in PostgreSQL, for many toolhost
// processes on many machines — replicas of `toolhost mcp --http` behind a
// load balancer — sharing every session's state: approvals, read stamps,
// todos, tool state, transcripts and parked questions. One machine keeps
// the default, session.Bolt; this store is chosen by a postgres:// URL in
// the config ("store": {"url": ...}) or TOOLHOST_STORE_URL.
//
// # Why pgx, and what the schema looks like
//
// github.com/jackc/pgx/v5 is pure Go (the binary stays static) and its
// pgxpool replaces broken connections by itself, so a database that
// restarts costs the calls made while it is down, not the process. Rows are
// (session, ns, key) → value, all bytea: ids and keys may hold NUL and
// bytes that are not UTF-8, which text columns refuse, and bytea sorts by
// bytes as List promises.
//
// # Migrations
//
// The schema is toolhost's to create and change: versioned SQL files in
// migrations/, embedded in the binary, applied by Open in one transaction
// that first takes a transaction-scoped advisory lock, so replicas that
// start together apply each version once and the lock cannot outlive a
// replica that dies half-way. A database whose schema is newer than the
// binary is refused rather than written with old assumptions. Open reads
// the version first and writes nothing when it is current, so a replica
// whose role may not create tables starts on a migrated schema; with
// Options.NoMigrate it never migrates and refuses a schema that is behind
// with "run toolhost migrate". Migrate (schema.go) is that separate step:
// it creates the schema search_path names and can grant a replica's role
// its privileges.
//
// # Retention, pools, start-up
//
// Options.Retention forgets sessions with no write for that long, by a
// sweep every replica runs but only one at a time (sweep.go). The pool's
// size and lifetimes are pgxpool's URL parameters (pool_max_conns, ...);
// PoolStat reads its state for metrics. Options.ListenURL gives LISTEN its
// own connection, for a pool behind PgBouncer in transaction pooling. A
// database unreachable at start is tried again for Options.StartWait, and
// then Open says toolhost stops, not that it will reconnect.
//
// # Transactions
//
// Every write is one transaction. Update reads the row with SELECT … FOR
// UPDATE, so concurrent updates of one key queue on its row lock; a key
// that does not exist yet has no row to lock, so the insert uses ON
// CONFLICT DO NOTHING and, when another writer inserted first, reads again
// and calls fn again — which session.Store allows.
//
// # Waking other replicas
//
// Store also implements Notifier: Notify and Listen over PostgreSQL's
// LISTEN/NOTIFY, which the MCP server uses to wake the replica holding a
// parked call when its answer arrives through another.
//
// This package imports nothing from toolhost but runtime/session.
package pgstore
