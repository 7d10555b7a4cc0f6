package wasm

import (
	"context"
	"path/filepath"
	"sync"
	"testing"

	"github.com/toolhost/toolhost/runtime/permission"
	"github.com/toolhost/toolhost/runtime/session"
)

// A guest's ask names any permission it likes: kitchen_ask asks for edit
// with always "*". A person's "always" to it approves that guest, and only
// it: its next ask goes through, while the built-in edit tool's request
// (unscoped) and another tool of the same module are asked again.
func TestAnAlwaysToAGuestsAskApprovesThatGuestOnly(t *testing.T) {
	t.Parallel()
	tools := kitchen(t, nil)
	var mu sync.Mutex
	var asked []permission.Request
	svc := permission.NewService(session.NewMemory(), permission.AskerFunc(func(_ context.Context, req permission.Request) (permission.Reply, error) {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, req)
		return permission.Reply{Kind: permission.Always}, nil
	}), nil)
	rules := permission.Ruleset{{Permission: "*", Pattern: "*", Action: permission.Ask}}
	ask := func(ctx context.Context, req permission.Request) error { return svc.Ask(ctx, rules, req) }
	count := func() int { mu.Lock(); defer mu.Unlock(); return len(asked) }

	tc := testContext(t, nil, ask)
	tc.Tool = "kitchen_ask"
	if _, err := call(t, tools["kitchen_ask"], `{"pattern": "src/a.go"}`, tc); err != nil {
		t.Fatal(err)
	}
	if count() != 1 {
		t.Fatalf("asked %d times, want once", count())
	}
	s := asked[0].Scope
	if s.Tool != "kitchen_ask" || s.Source != "wasm" || filepath.Base(s.File) != "kitchen.wasm" {
		t.Errorf("the guest's request has scope %+v, want kitchen_ask from its wasm file", s)
	}

	if _, err := call(t, tools["kitchen_ask"], `{"pattern": "src/b.go"}`, tc); err != nil || count() != 1 {
		t.Errorf("the same guest's second ask: err %v, asked %d times; want it approved without asking", err, count())
	}
	// The built-in edit tool asks unscoped in the same session.
	if err := svc.Ask(t.Context(), rules, permission.Request{SessionID: "s1", Tool: "edit", Permission: "edit", Patterns: []string{"src/c.go"}}); err != nil || count() != 2 {
		t.Errorf("built-in edit after the guest's always: err %v, asked %d times; want it asked", err, count())
	}
	tc2 := testContext(t, nil, ask)
	tc2.Tool = "kitchen_askhandled"
	if _, err := call(t, tools["kitchen_askhandled"], `{"pattern": "src/d.go"}`, tc2); err != nil || count() != 3 {
		t.Errorf("another guest tool: err %v, asked %d times; want it asked", err, count())
	}
}
