package runtime

import "sync"

// subscribers is a set of values (change callbacks, call watchers) that
// may be added and removed while calls list them. The zero value is empty.
type subscribers[T any] struct {
	mu   sync.Mutex
	next int
	m    map[int]T
}

// add puts v in the set until cancel is called; calling cancel more than
// once is harmless.
func (s *subscribers[T]) add(v T) (cancel func()) {
	s.mu.Lock()
	if s.m == nil {
		s.m = map[int]T{}
	}
	id := s.next
	s.next++
	s.m[id] = v
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		delete(s.m, id)
		s.mu.Unlock()
	}
}

// list is the set now; nil when empty, so a call path with no watchers
// allocates nothing.
func (s *subscribers[T]) list() []T {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.m) == 0 {
		return nil
	}
	out := make([]T, 0, len(s.m))
	for _, v := range s.m {
		out = append(out, v)
	}
	return out
}

// Subscribe calls fn after every change of the registry's tools or hooks
// (Add, Register, Remove, AddHook) until cancel is called. fn runs in the
// goroutine that made the change, after the registry's lock is released,
// so it may call the registry (Tools, IDs) — and it should return soon,
// because the change's caller waits for it. Changes made at the same time
// from several goroutines may call fn concurrently; a subscriber that
// rebuilds a list serialises itself. fn is not told what changed: list
// again. Calling cancel more than once is harmless; after it returns, fn
// is not called for later changes. Front ends that copy the tool list
// (the MCP server, a watching agent loop) use it to refresh.
func (r *Registry) Subscribe(fn func()) (cancel func()) { return r.changes.add(fn) }

// changed calls every subscriber. The caller must not hold r.mu.
func (r *Registry) changed() {
	for _, fn := range r.changes.list() {
		fn()
	}
}
