package runtime

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"

	"github.com/toolhost/toolhost/runtime/session"
)

// counterTool counts its calls per session in the session store.
func counterTool() Tool {
	return Define("counter", "Count calls.", func(ctx context.Context, _ struct{}, tc *Context) (Result, error) {
		var n int
		err := tc.Store.Update(ctx, tc.SessionID, "counter", "n", func(old []byte, _ bool) ([]byte, error) {
			n, _ = strconv.Atoi(string(old))
			n++
			return []byte(strconv.Itoa(n)), nil
		})
		return Result{Output: strconv.Itoa(n)}, err
	})
}

func TestEveryCallGetsTheRegistrysSessionStore(t *testing.T) {
	t.Parallel()
	given := session.NewMemory()
	for _, tc := range []struct {
		name  string
		store session.Store
	}{{"a store given in Options", given}, {"no store, so one in memory", nil}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := newTestRegistry(t, nil, func(o *Options) { o.Store = tc.store })
			r.Add(SourceBuiltin, counterTool())
			count := func(sid string) string {
				res, err := r.Call(t.Context(), Call{Tool: "counter", SessionID: sid, Args: json.RawMessage(`{}`)})
				if err != nil {
					t.Fatal(err)
				}
				return res.Output
			}
			got := count("a") + count("a") + count("b") + count("a")
			if got != "1213" {
				t.Errorf("counts = %s, want 1213: state kept per session across calls", got)
			}
			if tc.store != nil {
				if v, _, _ := tc.store.Get(t.Context(), "a", "counter", "n"); string(v) != "3" {
					t.Errorf("given store holds %q, want 3", v)
				}
			}
		})
	}
}

func TestNewContextAlwaysHasAStore(t *testing.T) {
	t.Parallel()
	tc := NewContext(Context{SessionID: "s"}, nil, nil)
	if tc.Store == nil {
		t.Fatal("NewContext left Store nil")
	}
	if err := session.Put(t.Context(), tc.Store, "s", "n", "k", []byte("v")); err != nil {
		t.Fatal(err)
	}
	copied := *tc // a copy shares the store, as a tool calling tools does
	if v, ok, _ := copied.Store.Get(t.Context(), "s", "n", "k"); !ok || string(v) != "v" {
		t.Errorf("copy sees %q %v", v, ok)
	}
	given := session.NewMemory()
	if NewContext(Context{Store: given}, nil, nil).Store != given {
		t.Error("NewContext replaced the given store")
	}
}
