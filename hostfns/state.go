package hostfns

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	extism "github.com/extism/go-sdk"
)

// MaxStateValue bounds one state value: state is for cursors and small
// caches, not files.
const MaxStateValue = 1 << 20

// StateNamespace is the session-store namespace of a tool's state.
func StateNamespace(tool string) string { return "wasm:" + tool }

// StateSet is the JSON a guest passes to state_set.
type StateSet struct {
	Key   string          `json:"key"`
	Value json.RawMessage `json:"value"`
}

// stateGet reads a value of the tool's per-session state.
//
//	(import "extism:host/user" "state_get" (func (param i64) (result i64)))
//
// Parameter: offset of a block holding the key (raw UTF-8, not JSON).
// Result: offset of a new block holding the value's JSON, or 0 when the
// key is absent. Only available during execute; the store failing aborts
// the guest.
func stateGet(ctx context.Context, p *extism.CurrentPlugin, stack []uint64) {
	c := callOf(ctx, NameStateGet)
	key := string(readArg(c, NameStateGet, p, stack))
	if c.Context == nil {
		fail(c, NameStateGet, errors.New("state is only available while executing a call"))
	}
	ns := StateNamespace(c.Tool)
	var v []byte
	var ok bool
	var err error
	if st := c.Context.Store; st != nil && c.Context.SessionID != "" {
		v, ok, err = st.Get(ctx, c.Context.SessionID, ns, key)
	} else {
		v, ok = c.State.get(c.Context.SessionID, ns, key)
	}
	if err != nil {
		fail(c, NameStateGet, err)
	}
	if !ok {
		v = nil
	}
	reply(c, NameStateGet, p, stack, v)
}

// stateSet writes a value of the tool's per-session state.
//
//	(import "extism:host/user" "state_set" (func (param i64) (result i64)))
//
// Parameter: offset of a block holding StateSet JSON; a null value deletes
// the key. Values over MaxStateValue bytes abort the guest.
// Result: always 0.
func stateSet(ctx context.Context, p *extism.CurrentPlugin, stack []uint64) {
	c := callOf(ctx, NameStateSet)
	raw := readArg(c, NameStateSet, p, stack)
	if c.Context == nil {
		fail(c, NameStateSet, errors.New("state is only available while executing a call"))
	}
	var s StateSet
	if err := json.Unmarshal(raw, &s); err != nil {
		fail(c, NameStateSet, fmt.Errorf("argument is not StateSet JSON: %w", err))
	}
	if len(s.Value) > MaxStateValue {
		fail(c, NameStateSet, fmt.Errorf("value of %q is %d bytes, over the %d-byte limit; keep state small", s.Key, len(s.Value), MaxStateValue))
	}
	var v []byte
	if len(s.Value) > 0 && string(s.Value) != "null" {
		v = append([]byte(nil), s.Value...)
	}
	ns := StateNamespace(c.Tool)
	if st := c.Context.Store; st != nil && c.Context.SessionID != "" {
		var err error
		if v == nil {
			err = st.Delete(ctx, c.Context.SessionID, ns, s.Key)
		} else {
			err = st.Put(ctx, c.Context.SessionID, ns, s.Key, v)
		}
		if err != nil {
			fail(c, NameStateSet, err)
		}
	} else {
		c.State.set(c.Context.SessionID, ns, s.Key, v)
	}
	stack[0] = 0
}

// MemoryState keeps tool state in memory for hosts without a session
// store. The zero value is ready to use; a nil *MemoryState drops writes.
type MemoryState struct {
	mu sync.Mutex
	m  map[[3]string][]byte
}

func (s *MemoryState) get(session, ns, key string) ([]byte, bool) {
	if s == nil {
		return nil, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[[3]string{session, ns, key}]
	return v, ok
}

func (s *MemoryState) set(session, ns, key string, v []byte) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[[3]string][]byte{}
	}
	k := [3]string{session, ns, key}
	if v == nil {
		delete(s.m, k)
		return
	}
	s.m[k] = v
}
