package host

import (
	"errors"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/runtime/session/pgstore"
)

func TestAHostWithMigrationsOffRefusesAnUnmigratedDatabaseAndStartsOnAMigratedOne(t *testing.T) {
	t.Parallel()
	url := pg.Database(t) + "&search_path=th_host"
	project, env := newProject(t)
	opts := Options{Directory: project, NoWasm: true, DataDir: t.TempDir(), CacheDir: testCache(t), Env: func(k string) string {
		switch k {
		case "TOOLHOST_STORE_URL":
			return url
		case "TOOLHOST_STORE_MIGRATE":
			return "false"
		}
		return env(k)
	}}
	_, err := New(t.Context(), opts)
	if !errors.Is(err, pgstore.ErrSchemaBehind) || !strings.Contains(err.Error(), "run `toolhost migrate`") {
		t.Fatalf("host on an unmigrated database with migrations off = %v; want the remedy", err)
	}
	if _, err := pgstore.Migrate(t.Context(), url, pgstore.MigrateOptions{}); err != nil {
		t.Fatal(err)
	}
	h, err := New(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(t.Context())
	if _, err := call(t, h, "todowrite", "ses_m", oneTodo); err != nil {
		t.Fatal(err)
	}
}
