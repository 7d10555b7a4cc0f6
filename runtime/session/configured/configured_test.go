package configured

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/runtime/config"
	"github.com/toolhost/toolhost/runtime/session"
)

func TestWithoutADatabaseTheStoreIsTheFileInTheDataDirectoryWrittenBehind(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	st, err := Open(t.Context(), &config.Config{}, Options{DataDir: dir, Env: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	wb, ok := st.(*session.WriteBehind)
	if !ok {
		t.Fatalf("store is a %T, want read stamps written behind (*session.WriteBehind)", st)
	}
	if err := st.Update(t.Context(), "s1", "ns", "k", func([]byte, bool) ([]byte, error) { return []byte("v"), nil }); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if b, ok := wb.Inner().(*session.Bolt); !ok || b.Path() != filepath.Join(dir, "sessions.db") {
		t.Errorf("inner store %T, want the bbolt file sessions.db in the data directory", wb.Inner())
	}
	if _, err := os.Stat(filepath.Join(dir, "sessions.db")); err != nil {
		t.Errorf("a write made no sessions.db in the data directory: %v", err)
	}
}

func TestABadStoreURLFailsNamingWhereItCameFromAndTheFormWanted(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, key, url, want string
	}{
		{"a URL of another scheme", config.EnvStoreURL, "mysql://db:3306/sessions", "session store URL (TOOLHOST_STORE_URL or store.url) has scheme \"mysql\""},
		{"a URL without a host", config.EnvStoreURL, "postgres:///sessions", "session store URL (TOOLHOST_STORE_URL or store.url) names no host"},
		{"a listen URL of another scheme", config.EnvStoreListenURL, "http://db/sessions", "session store listen URL (TOOLHOST_STORE_LISTEN_URL or store.listen_url) has scheme \"http\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			env := func(k string) string {
				switch k {
				case tt.key:
					return tt.url
				case config.EnvStoreURL: // a listen URL is checked only beside a database
					return "postgres://user@127.0.0.1:1/sessions"
				}
				return ""
			}
			st, err := Open(t.Context(), &config.Config{}, Options{DataDir: t.TempDir(), Env: env})
			if err == nil {
				st.Close()
				t.Fatal("Open accepted the URL")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q, want it to contain %q", err, tt.want)
			}
		})
	}
}

// counted is a store decorator that counts Update calls.
type counted struct {
	session.Store
	updates int
}

func (c *counted) Update(ctx context.Context, sess, ns, key string, fn func([]byte, bool) ([]byte, error)) error {
	c.updates++
	return c.Store.Update(ctx, sess, ns, key, fn)
}

func TestWrapDecoratesTheStoreOpenReturns(t *testing.T) {
	t.Parallel()
	var c *counted
	wrap := func(s session.Store) session.Store { c = &counted{Store: s}; return c }
	st, err := Open(t.Context(), &config.Config{}, Options{DataDir: t.TempDir(), Env: func(string) string { return "" }, Wrap: wrap})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if st != session.Store(c) {
		t.Fatalf("Open returned %T, not the wrapped store", st)
	}
	if err := st.Update(t.Context(), "s1", "ns", "k", func([]byte, bool) ([]byte, error) { return []byte("v"), nil }); err != nil {
		t.Fatal(err)
	}
	if c.updates != 1 {
		t.Errorf("the decorator saw %d updates, want 1", c.updates)
	}
}
