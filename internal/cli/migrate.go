package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/toolhost/toolhost/runtime/config"
	"github.com/toolhost/toolhost/runtime/session/pgstore"
)

// MigrateOptions are the flags of `toolhost migrate`.
type MigrateOptions struct {
	// URL is the store URL; "" reads TOOLHOST_STORE_URL, then the
	// config's "store.url".
	URL string
	// Grant names roles given a replica's privileges on the schema.
	Grant []string
	// Wait is how long to keep trying while the database is unreachable.
	Wait time.Duration
	// Env reads the environment; nil is os.Getenv.
	Env func(string) string
}

// NewCmdMigrate brings the PostgreSQL session store's schema up to date,
// as a step of its own. runF replaces the behaviour in tests of flag
// parsing; nil means runMigrate.
func NewCmdMigrate(g *Globals, runF func(context.Context, *Globals, *MigrateOptions) error) *cobra.Command {
	opts := &MigrateOptions{}
	cmd := &cobra.Command{
		Use:   "migrate",
		Short: "Create or upgrade the PostgreSQL session store's schema",
		Long: `Create the schema the store URL's search_path names (when it does not
exist) and bring toolhost's tables in it to this version, then exit. Run it
as a job of its own — before the replicas start, and before each upgrade —
with a role that may create tables, and start the replicas with
"store": {"migrate": false} or TOOLHOST_STORE_MIGRATE=false under a role
that may not: they then refuse a schema that is behind, saying to run this.

--grant ROLE gives a replica's role what it needs on the schema: USAGE, and
SELECT, INSERT, UPDATE, DELETE on toolhost's tables, now and on the tables
later migrations create. Running migrate again changes nothing. Replicas
that start together with migrations on take an advisory lock, as this does,
so a migration is applied once (docs/deploy.md).`,
		Example: `  TOOLHOST_STORE_URL='postgres://admin:PW@db:5432/toolhost?search_path=toolhost' toolhost migrate
  toolhost migrate --url "$ADMIN_URL" --grant toolhost_app
  toolhost migrate --wait 2m`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.Wait < 0 {
				return usageError{fmt.Errorf("--wait %s: want a duration of 0 or more", opts.Wait)}
			}
			if runF != nil {
				return runF(cmd.Context(), g, opts)
			}
			return runMigrate(cmd.Context(), g, opts)
		},
	}
	cmd.Flags().StringVar(&opts.URL, "url", "", "PostgreSQL store `URL` (default $"+config.EnvStoreURL+", else \"store.url\")")
	cmd.Flags().StringArrayVar(&opts.Grant, "grant", nil, "`role` the replicas run as, granted use of the tables (repeatable)")
	cmd.Flags().DurationVar(&opts.Wait, "wait", config.DefaultStoreStartWait, "how long to keep trying while the database cannot be reached")
	return cmd
}

func runMigrate(ctx context.Context, g *Globals, opts *MigrateOptions) error {
	env := opts.Env
	if env == nil {
		env = os.Getenv
	}
	url := cmp.Or(opts.URL, env(config.EnvStoreURL))
	if url == "" {
		// Only now the config files: a migrate job sets the variable and
		// has no project to read.
		dir, err := filepath.Abs(cmp.Or(g.Dir, "."))
		if err != nil {
			return fmt.Errorf("working directory %s: %w", g.Dir, err)
		}
		loaded, _, err := g.loadConfig(dir, env)
		if err != nil {
			return err
		}
		url = loaded.Config.StoreURL(env)
	}
	if url == "" {
		return usageError{errors.New("no session store URL: pass --url, set " + config.EnvStoreURL + ", or \"store\": {\"url\": ...} in toolhost.json; the local bbolt store needs no migration")}
	}
	if err := config.CheckStoreURL(url); err != nil {
		return usageError{fmt.Errorf("store URL %w", err)}
	}
	res, err := pgstore.Migrate(ctx, url, pgstore.MigrateOptions{Grant: opts.Grant, StartWait: opts.Wait})
	if err != nil {
		return err
	}
	if res.From == res.To {
		fmt.Fprintf(g.Streams.Out, "session store %s, schema %q: at version %d, nothing to do\n", res.Addr, res.Schema, res.To)
	} else {
		fmt.Fprintf(g.Streams.Out, "session store %s, schema %q: migrated from version %d to %d\n", res.Addr, res.Schema, res.From, res.To)
	}
	for _, r := range opts.Grant {
		fmt.Fprintf(g.Streams.Out, "granted %s the use of schema %q\n", r, res.Schema)
	}
	return nil
}
