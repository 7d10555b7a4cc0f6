package session

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"sync"
)

// Memory is a Store in the process's memory: what a host built without a
// store uses, so every caller has a Store and none keeps a fallback of its
// own. Its state lives as long as the value. The zero value is ready to
// use; it is safe for concurrent use by many goroutines.
//
// One mutex guards everything and Update runs fn under it, which makes
// every Update a transaction; session state is small and its writes are
// rare next to the tool calls that make them.
type Memory struct {
	mu       sync.Mutex
	closed   bool
	sessions map[string]map[string]map[string][]byte // session → namespace → key → value
	notify   Fanout                                  // Notifier (notify.go)
}

var _ Store = (*Memory)(nil)

// NewMemory returns an empty in-memory store.
func NewMemory() *Memory { return &Memory{} }

// lock takes the mutex of an open store; the caller unlocks.
func (m *Memory) lock(ctx context.Context) error {
	if err := ctxErr(ctx); err != nil {
		return err
	}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return closedErr()
	}
	return nil
}

// Get implements Store.
func (m *Memory) Get(ctx context.Context, sessionID, ns, key string) ([]byte, bool, error) {
	if err := checkIDs(sessionID, ns); err != nil {
		return nil, false, err
	}
	if err := m.lock(ctx); err != nil {
		return nil, false, err
	}
	defer m.mu.Unlock()
	v, ok := m.sessions[sessionID][ns][key]
	return bytes.Clone(v), ok, nil
}

// Update implements Store.
func (m *Memory) Update(ctx context.Context, sessionID, ns, key string, fn func(old []byte, exists bool) ([]byte, error)) error {
	if err := checkIDs(sessionID, ns); err != nil {
		return err
	}
	if err := m.lock(ctx); err != nil {
		return err
	}
	defer m.mu.Unlock()
	old, exists := m.sessions[sessionID][ns][key]
	nv, err := fn(bytes.Clone(old), exists)
	if err != nil {
		return err
	}
	if err := ctxErr(ctx); err != nil {
		return err
	}
	if nv == nil {
		if exists {
			delete(m.sessions[sessionID][ns], key)
			if len(m.sessions[sessionID][ns]) == 0 {
				delete(m.sessions[sessionID], ns)
			}
			if len(m.sessions[sessionID]) == 0 {
				delete(m.sessions, sessionID)
			}
		}
		return nil
	}
	if m.sessions == nil {
		m.sessions = map[string]map[string]map[string][]byte{}
	}
	s := m.sessions[sessionID]
	if s == nil {
		s = map[string]map[string][]byte{}
		m.sessions[sessionID] = s
	}
	n := s[ns]
	if n == nil {
		n = map[string][]byte{}
		s[ns] = n
	}
	n[key] = append([]byte{}, nv...)
	return nil
}

// List implements Store.
func (m *Memory) List(ctx context.Context, sessionID, ns string) ([]KV, error) {
	if err := checkIDs(sessionID, ns); err != nil {
		return nil, err
	}
	if err := m.lock(ctx); err != nil {
		return nil, err
	}
	defer m.mu.Unlock()
	n := m.sessions[sessionID][ns]
	out := make([]KV, 0, len(n))
	for k, v := range n {
		out = append(out, KV{Key: k, Value: bytes.Clone(v)})
	}
	slices.SortFunc(out, func(a, b KV) int { return strings.Compare(a.Key, b.Key) })
	return out, nil
}

// DeleteSession implements Store.
func (m *Memory) DeleteSession(ctx context.Context, sessionID string) error {
	if err := checkIDs(sessionID, "-"); err != nil {
		return err
	}
	if err := m.lock(ctx); err != nil {
		return err
	}
	defer m.mu.Unlock()
	delete(m.sessions, sessionID)
	return nil
}

// Close drops the state; later calls return an error wrapping ErrClosed.
func (m *Memory) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed = true
	m.sessions = nil
	return nil
}
