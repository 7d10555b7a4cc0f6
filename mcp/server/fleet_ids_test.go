package server

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/toolhost/toolhost/runtime/session"
)

// The HMAC key's row is bookkeeping, whose rows the retention sweep
// expires one by one: a running replica rewrites it every keyTouch, and
// puts back the key it holds should the row be gone, so the ids it and
// the other running replicas minted stay good.
func TestTheSessionIDKeyIsRewrittenAndNeverRemadeUnderRunningReplicas(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := session.NewMemory()
	f := &fleet{store: store}
	id, err := f.mint(ctx, "alice")
	if err != nil {
		t.Fatal(err)
	}
	key := bytes.Clone(f.key.key)
	if err := session.Delete(ctx, store, fleetStoreSession, fleetKeyNS, fleetKeyKey); err != nil {
		t.Fatal(err)
	}
	f.key.touched = time.Now().Add(-keyTouch - time.Second)
	if ok, err := f.owns(ctx, id, "alice"); err != nil || !ok {
		t.Fatalf("after the key's row was swept, alice's id is hers: %v, %v; want true", ok, err)
	}
	raw, ok, err := store.Get(ctx, fleetStoreSession, fleetKeyNS, fleetKeyKey)
	if err != nil || !ok || !bytes.Equal(raw, key) {
		t.Fatalf("the key's row after the touch: %x (present %v, %v); want the key put back", raw, ok, err)
	}
	other := &fleet{store: store} // a replica starting now
	if ok, err := other.owns(ctx, id, "alice"); err != nil || !ok {
		t.Fatalf("a replica started after the sweep refuses alice's id: %v, %v", ok, err)
	}
}
