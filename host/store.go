package host

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/toolhost/toolhost/runtime/config"
	"github.com/toolhost/toolhost/runtime/session"
	"github.com/toolhost/toolhost/runtime/session/pgstore"
)

// openStore opens the session store in effect: PostgreSQL when
// TOOLHOST_STORE_URL or "store": {"url"} names one, else the bbolt file in
// the data directory. A PostgreSQL database must be reachable at start (a
// replica that cannot reach it should not report ready); once open, the
// store reconnects by itself and calls made while it is down fail with an
// error saying so.
func openStore(ctx context.Context, cfg *config.Config, opts Options) (session.Store, error) {
	url := cfg.StoreURL(opts.Env)
	if url == "" {
		bolt, err := session.Open(filepath.Join(opts.DataDir, "sessions.db"))
		if err != nil {
			return nil, err
		}
		// Read stamps are deferred writes, batched; Close writes the last
		// ones. A shared store is not wrapped: other replicas must see
		// every write, and its Notifier must stay visible.
		return session.NewWriteBehind(bolt, session.DefaultWriteBehindWindow), nil
	}
	if err := config.CheckStoreURL(url); err != nil {
		return nil, fmt.Errorf("session store URL (%s or store.url) %w", config.EnvStoreURL, err)
	}
	s, err := pgstore.Open(ctx, url)
	if err != nil {
		return nil, err
	}
	opts.Logger.Info("session store", "postgres", s.Addr())
	return s, nil
}
