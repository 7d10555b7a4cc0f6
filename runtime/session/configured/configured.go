// Package configured opens the session store a configuration names: the
// PostgreSQL database of "store": {"url"} or TOOLHOST_STORE_URL, shared by
// replicas, else the bbolt file in the data directory. It sits beside
// package session, not in it, because it chooses among the stores
// (session and session/pgstore), and pgstore imports session.
package configured

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"

	"github.com/toolhost/toolhost/runtime/config"
	"github.com/toolhost/toolhost/runtime/session"
	"github.com/toolhost/toolhost/runtime/session/pgstore"
)

// Options say where a store the config does not place lives, and how to
// read the environment.
type Options struct {
	// DataDir holds sessions.db when no database is named.
	DataDir string
	// Env reads environment variables (TOOLHOST_STORE_URL and the rest).
	Env func(string) string
	// Logger reports the database opened. Nil: nothing is logged.
	Logger *slog.Logger
	// Wrap, when set, decorates the store before Open returns it, so
	// nothing uses the store undecorated (the MCP server times its
	// operations for /metrics).
	Wrap func(session.Store) session.Store
}

// Open opens the session store in effect: PostgreSQL when
// TOOLHOST_STORE_URL or "store": {"url"} names one, else the bbolt file in
// the data directory. A PostgreSQL database must be reachable at start (a
// replica that cannot reach it should not report ready): Open keeps trying
// for "store.start_wait" and then fails with an error saying the process
// stops and what to do. Once open, the store reconnects by itself and
// calls made while it is down fail with an error saying so.
func Open(ctx context.Context, cfg *config.Config, opts Options) (session.Store, error) {
	s, err := open(ctx, cfg, opts)
	if err != nil || opts.Wrap == nil {
		return s, err
	}
	return opts.Wrap(s), nil
}

func open(ctx context.Context, cfg *config.Config, opts Options) (session.Store, error) {
	st, err := cfg.StoreSettings(opts.Env)
	if err != nil {
		return nil, fmt.Errorf("session store: %w", err)
	}
	if st.URL == "" {
		bolt, err := session.Open(filepath.Join(opts.DataDir, "sessions.db"))
		if err != nil {
			return nil, err
		}
		// Read stamps are deferred writes, batched; Close writes the last
		// ones. A shared store is not wrapped: other replicas must see
		// every write, and its Notifier must stay visible.
		return session.NewWriteBehind(bolt, session.DefaultWriteBehindWindow), nil
	}
	if err := config.CheckStoreURL(st.URL); err != nil {
		return nil, fmt.Errorf("session store URL (%s or store.url) %w", config.EnvStoreURL, err)
	}
	if err := config.CheckStoreURL(st.ListenURL); err != nil {
		return nil, fmt.Errorf("session store listen URL (%s or store.listen_url) %w", config.EnvStoreListenURL, err)
	}
	s, err := pgstore.OpenWith(ctx, st.URL, pgstore.Options{
		NoMigrate: !st.Migrate,
		ListenURL: st.ListenURL,
		StartWait: st.StartWait,
		Retention: st.Retention,
	})
	if err != nil {
		return nil, err
	}
	if opts.Logger != nil {
		opts.Logger.Info("session store", "postgres", s.Addr(), "migrate", st.Migrate, "retention", st.Retention)
	}
	return s, nil
}
