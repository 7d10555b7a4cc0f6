package runtime

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
)

func TestSubscribersHearEveryChangeOfToolsAndHooks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		change func(r *Registry)
		want   []string // the ids a subscriber lists when told
	}{
		{"adding a tool", func(r *Registry) { r.Add(SourceWasm, echoTool("shout")) }, []string{"echo", "shout"}},
		{"registering a tool", func(r *Registry) { r.Register(echoTool("shout")) }, []string{"echo", "shout"}},
		{"removing a tool", func(r *Registry) { r.Remove(SourceBuiltin, "echo") }, []string{}},
		{"removing an unknown id changes nothing and tells no one", func(r *Registry) { r.Remove(SourceBuiltin, "nothing") }, nil},
		{"adding a hook", func(r *Registry) { r.AddHook(HookFuncs{}) }, []string{"echo"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := newTestRegistry(t, nil)
			r.Add(SourceBuiltin, echoTool("echo"))
			var seen [][]string
			cancel := r.Subscribe(func() {
				// Listing from inside the callback must not deadlock:
				// the registry's lock is released before subscribers run.
				tools, err := r.Tools(context.Background(), "", "")
				if err != nil {
					t.Error(err)
				}
				ids := []string{}
				for _, ti := range tools {
					ids = append(ids, ti.ID)
				}
				seen = append(seen, ids)
			})
			defer cancel()
			tt.change(r)
			if tt.want == nil {
				if len(seen) != 0 {
					t.Errorf("subscriber saw %v, want no call", seen)
				}
				return
			}
			if len(seen) != 1 || !slices.Equal(seen[0], tt.want) {
				t.Errorf("subscriber saw %v, want one call listing %v", seen, tt.want)
			}
		})
	}
}

func TestCancelledSubscribersHearNothingMore(t *testing.T) {
	t.Parallel()
	r := newTestRegistry(t, nil)
	var a, b int
	cancelA := r.Subscribe(func() { a++ })
	cancelB := r.Subscribe(func() { b++ })
	r.Add(SourceBuiltin, echoTool("echo"))
	cancelA()
	cancelA() // twice is harmless
	r.Remove(SourceBuiltin, "echo")
	cancelB()
	r.Add(SourceBuiltin, echoTool("echo"))
	if a != 1 || b != 2 {
		t.Errorf("calls: first subscriber %d (want 1), second %d (want 2)", a, b)
	}
}

func TestSubscribersMayCancelThemselvesAndChangesMayRace(t *testing.T) {
	t.Parallel()
	r := newTestRegistry(t, nil)
	var mu sync.Mutex
	calls := 0
	var cancel func()
	ready := make(chan struct{})
	cancel = r.Subscribe(func() {
		<-ready
		mu.Lock()
		calls++
		mu.Unlock()
		cancel() // unsubscribing from inside the callback must not deadlock
	})
	close(ready)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := "tool" + strings.Repeat("x", i)
			r.Add(SourceRuntime, echoTool(id))
			r.Remove(SourceRuntime, id)
		}()
	}
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	if calls < 1 {
		t.Errorf("subscriber called %d times, want at least once", calls)
	}
	if got := len(r.IDs()); got != 0 {
		t.Errorf("registry holds %d tools after every add was removed", got)
	}
}
