package cli_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/toolhost/toolhost/internal/cli"
	"github.com/toolhost/toolhost/runtime/session"
	"github.com/toolhost/toolhost/runtime/session/pgstore"
	"github.com/toolhost/toolhost/runtime/session/pgstore/pgtest"
)

var pg pgtest.Shared

// migrate runs `toolhost migrate args...` in this process with env as its
// environment, returning what it printed and its error.
func migrate(t *testing.T, env map[string]string, args ...string) (string, error) {
	t.Helper()
	out := &bytes.Buffer{}
	g := &cli.Globals{Dir: t.TempDir(), Streams: cli.IOStreams{Out: out, ErrOut: &bytes.Buffer{}}}
	cmd := cli.NewCmdMigrate(g, func(ctx context.Context, g *cli.Globals, o *cli.MigrateOptions) error {
		o.Env = func(k string) string { return env[k] }
		return cli.RunMigrate(ctx, g, o)
	})
	cmd.SetArgs(args)
	cmd.SetOut(out)
	cmd.SetErr(out)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	err := cmd.ExecuteContext(t.Context())
	return out.String(), err
}

func TestMigrateSetsUpAFreshDatabaseWithACustomSchemaForReplicasThatDoNotMigrate(t *testing.T) {
	t.Parallel()
	admin := pg.Database(t) + "&search_path=th_cli"
	env := map[string]string{"TOOLHOST_STORE_URL": admin}
	out, err := migrate(t, env)
	if err != nil || !strings.Contains(out, `schema "th_cli": migrated from version 0 to`) {
		t.Fatalf("migrate a fresh database = %q, %v", out, err)
	}
	out, err = migrate(t, env)
	if err != nil || !strings.Contains(out, "nothing to do") {
		t.Fatalf("migrate again = %q, %v; want nothing to do", out, err)
	}
	s, err := pgstore.OpenWith(t.Context(), admin, pgstore.Options{NoMigrate: true})
	if err != nil {
		t.Fatalf("a replica with migrations off after toolhost migrate: %v", err)
	}
	defer s.Close()
	if err := session.Put(t.Context(), s, "s", "n", "k", []byte("v")); err != nil {
		t.Fatal(err)
	}
}

func TestMigrateGrantsTheReplicaRoleItsTables(t *testing.T) {
	t.Parallel()
	admin := pg.Database(t) + "&search_path=th_grant"
	role := "replica_" + admin[strings.LastIndex(admin, "/")+1:strings.Index(admin, "?")]
	conn, err := pgx.Connect(t.Context(), admin)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(t.Context(), `CREATE ROLE `+role+` LOGIN`); err != nil {
		t.Fatal(err)
	}
	out, err := migrate(t, nil, "--url", admin, "--grant", role)
	if err != nil || !strings.Contains(out, "granted "+role) {
		t.Fatalf("migrate --grant = %q, %v", out, err)
	}
	app := strings.Replace(admin, "postgres://postgres@", "postgres://"+role+"@", 1)
	s, err := pgstore.OpenWith(t.Context(), app, pgstore.Options{NoMigrate: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := session.Put(t.Context(), s, "s", "n", "k", []byte("v")); err != nil {
		t.Fatalf("write as the granted role: %v", err)
	}
}

func TestMigrateRefusesWhatItCannotUse(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name     string
		args     []string
		wantExit int
		want     string
	}{
		{"no URL anywhere", nil, cli.ExitUsage, "pass --url"},
		{"a URL of another database", []string{"--url", "mysql://u:s3cret@db/x"}, cli.ExitUsage, "postgres://"},
		{"a negative wait", []string{"--url", "postgres://h/db", "--wait", "-1s"}, cli.ExitUsage, "--wait"},
		{"a database that is not there", []string{"--url", "postgres://u:s3cret@127.0.0.1:1/db?connect_timeout=2", "--wait", "0"}, cli.ExitToolFailed, "toolhost stops here"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, err := migrate(t, nil, c.args...)
			if err == nil || cli.ExitCode(err) != c.wantExit || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "s3cret") {
				t.Fatalf("migrate %v = %v (exit %d); want exit %d saying %q without the password", c.args, err, cli.ExitCode(err), c.wantExit, c.want)
			}
		})
	}
}
