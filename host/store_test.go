package host

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/engines/lsp/lsptest"
	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/session/pgstore"
	"github.com/toolhost/toolhost/runtime/session/pgstore/pgtest"
)

var pg pgtest.Shared

func TestMain(m *testing.M) {
	// The test binary doubles as a fake language server (lsptest).
	lsptest.ServeIfAsked()
	os.Exit(pg.Main(m))
}

// newPGHost assembles a host whose session store is the database at url,
// named by TOOLHOST_STORE_URL as a deployment names it.
func newPGHost(t *testing.T, url string) *Host {
	t.Helper()
	project, env := newProject(t)
	h, err := New(t.Context(), Options{Directory: project, NoWasm: true, DataDir: t.TempDir(), CacheDir: testCache(t), Env: func(k string) string {
		if k == "TOOLHOST_STORE_URL" {
			return url
		}
		return env(k)
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.WithoutCancel(t.Context())) })
	return h
}

func call(t *testing.T, h *Host, tool, session, args string) (runtime.Result, error) {
	t.Helper()
	return h.Registry.Call(t.Context(), runtime.Call{Tool: tool, SessionID: session, Args: json.RawMessage(args)})
}

const oneTodo = `{"todos": [{"content": "ship it", "status": "pending", "priority": "high"}]}`

func TestTwoHostsOnOneDatabaseShareASessionsTodos(t *testing.T) {
	t.Parallel()
	url := pg.Database(t)
	a, b := newPGHost(t, url), newPGHost(t, url)
	if _, ok := a.Store.(*pgstore.Store); !ok {
		t.Fatalf("store = %T, want the PostgreSQL store the URL names", a.Store)
	}
	if _, err := call(t, a, "todowrite", "ses_shared", oneTodo); err != nil {
		t.Fatal(err)
	}
	res, err := call(t, b, "todoread", "ses_shared", `{}`)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Output, "ship it") {
		t.Errorf("todoread through the second host = %q; want the todo written through the first", res.Output)
	}
}

func TestABadStoreURLStopsTheHostWithoutEchoingIt(t *testing.T) {
	t.Parallel()
	for _, url := range []string{"mysql://u:s3cret@db/x", "postgres://u:s3cret@[::1/x", "postgres:///nohost"} {
		project, env := newProject(t)
		_, err := New(t.Context(), Options{Directory: project, NoWasm: true, DataDir: t.TempDir(), CacheDir: testCache(t), Env: func(k string) string {
			if k == "TOOLHOST_STORE_URL" {
				return url
			}
			return env(k)
		}})
		if err == nil || !strings.Contains(err.Error(), "TOOLHOST_STORE_URL") || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("New with store URL %q = %v; want a refusal naming the variable and not the password", url, err)
		}
	}
}

// TestCallsFailClearlyWhileTheDatabaseIsDownAndWorkAfter stops the
// package's server, so it is not parallel: Go runs it before the parallel
// tests start.
func TestCallsFailClearlyWhileTheDatabaseIsDownAndWorkAfter(t *testing.T) {
	srv := pg.Server(t)
	h := newPGHost(t, pg.Database(t))
	ctx := t.Context()
	if _, err := call(t, h, "todowrite", "ses_down", oneTodo); err != nil {
		t.Fatal(err)
	}
	if err := srv.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	restarted := false
	t.Cleanup(func() {
		if !restarted {
			_ = srv.Restart(context.WithoutCancel(ctx))
		}
	})
	_, err := call(t, h, "todoread", "ses_down", `{}`)
	if !errors.Is(err, pgstore.ErrUnavailable) || !strings.Contains(err.Error(), "check that PostgreSQL is running") {
		t.Fatalf("todoread with the database down = %v; want an error saying the store is unavailable and what to check", err)
	}
	if err := srv.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	restarted = true
	res, err := call(t, h, "todoread", "ses_down", `{}`)
	if err != nil || !strings.Contains(res.Output, "ship it") {
		t.Fatalf("todoread after the database came back = %q, %v; want the todo written before", res.Output, err)
	}
}
