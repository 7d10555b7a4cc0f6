package runtime

import "sync"

// changeFeed tells subscribers that the registry's tools or hooks changed,
// so front ends that copy the tool list (the MCP server, a watching agent
// loop) can refresh it. The zero value has no subscribers.
type changeFeed struct {
	mu   sync.Mutex
	next int
	subs map[int]func()
}

// Subscribe calls fn after every change of the registry's tools or hooks
// (Add, Register, Remove, AddHook) until cancel is called. fn runs in the
// goroutine that made the change, after the registry's lock is released,
// so it may call the registry (Tools, IDs) — and it should return soon,
// because the change's caller waits for it. Changes made at the same time
// from several goroutines may call fn concurrently; a subscriber that
// rebuilds a list serialises itself. fn is not told what changed: list
// again. Calling cancel more than once is harmless; after it returns, fn
// is not called for later changes.
func (r *Registry) Subscribe(fn func()) (cancel func()) {
	f := &r.changes
	f.mu.Lock()
	if f.subs == nil {
		f.subs = map[int]func(){}
	}
	id := f.next
	f.next++
	f.subs[id] = fn
	f.mu.Unlock()
	return func() {
		f.mu.Lock()
		delete(f.subs, id)
		f.mu.Unlock()
	}
}

// changed calls every subscriber. The caller must not hold r.mu.
func (r *Registry) changed() {
	f := &r.changes
	f.mu.Lock()
	fns := make([]func(), 0, len(f.subs))
	for _, fn := range f.subs {
		fns = append(fns, fn)
	}
	f.mu.Unlock()
	for _, fn := range fns {
		fn()
	}
}
