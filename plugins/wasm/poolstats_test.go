package wasm

import (
	"context"
	"testing"
)

func TestPoolsCountIdleAndInUseInstancesPerModule(t *testing.T) {
	t.Parallel()
	h := newHost(t, nil)
	tools := discover(t, h, configDir(t, map[string]string{"echo.wasm": guest(t, "echo")}))
	if _, err := call(t, tools["echo"], `{"text":"hi"}`, nil); err != nil {
		t.Fatal(err)
	}
	got := h.Pools()
	if len(got) != 1 || got[0].Idle != 1 || got[0].InUse != 0 {
		t.Fatalf("pools after one call = %+v; want one module with 1 idle, 0 in use", got)
	}
	// An instance taken by a call in flight counts as in use.
	h.mu.Lock()
	m := h.modules[firstKey(h.modules)]
	h.mu.Unlock()
	var c *compiled
	for _, g := range m.groups {
		c = g.compiled()
	}
	in, err := c.get(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := h.Pools(); got[0].Idle != 0 || got[0].InUse != 1 || got[0].Module != m.name {
		t.Errorf("pools with the instance taken = %+v; want %s with 0 idle, 1 in use", got, m.name)
	}
	c.release(in, true)
	if got := h.Pools(); got[0].Idle != 1 || got[0].InUse != 0 {
		t.Errorf("pools after the release = %+v; want 1 idle, 0 in use", got)
	}
}

func firstKey[V any](m map[string]V) string {
	for k := range m {
		return k
	}
	return ""
}
