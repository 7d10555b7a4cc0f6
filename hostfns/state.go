package hostfns

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/toolhost/toolhost/runtime/session"
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
func stateGet(ctx context.Context, stack []uint64) {
	c := callOf(ctx, NameStateGet)
	key := string(readArg(c, NameStateGet, stack))
	if c.Context == nil {
		fail(c, NameStateGet, errors.New("state is only available while executing a call"))
	}
	st, sid, err := stateStore(c)
	if err != nil {
		fail(c, NameStateGet, err)
	}
	v, ok, err := st.Get(ctx, sid, StateNamespace(c.Tool), key)
	if err != nil {
		fail(c, NameStateGet, err)
	}
	if !ok {
		v = nil
	}
	reply(c, NameStateGet, stack, v)
}

// stateSet writes a value of the tool's per-session state.
//
//	(import "extism:host/user" "state_set" (func (param i64) (result i64)))
//
// Parameter: offset of a block holding StateSet JSON; a null value deletes
// the key. Values over MaxStateValue bytes abort the guest.
// Result: always 0.
func stateSet(ctx context.Context, stack []uint64) {
	c := callOf(ctx, NameStateSet)
	raw := readArg(c, NameStateSet, stack)
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
	st, sid, err := stateStore(c)
	if err != nil {
		fail(c, NameStateSet, err)
	}
	// A nil v deletes the key.
	if err := st.Update(ctx, sid, StateNamespace(c.Tool), s.Key, func([]byte, bool) ([]byte, error) { return v, nil }); err != nil {
		fail(c, NameStateSet, err)
	}
	stack[0] = 0
}

// stateSession is the session id the state of a session-less call is kept
// under, in Call.State.
const stateSession = "anonymous"

// stateStore returns the store and session id holding the call's state.
func stateStore(c *Call) (session.Store, string, error) {
	if sid := c.Context.SessionID; sid != "" {
		if c.Context.Store == nil {
			return nil, "", errors.New("no session store in the tool context; build it with runtime.NewContext or run the tool through a Registry")
		}
		return c.Context.Store, sid, nil
	}
	if c.State == nil {
		return nil, "", errors.New("tool state needs a session id here; pass one (--session)")
	}
	return c.State, stateSession, nil
}
