package builtins

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/toolhost/toolhost/runtime"
)

// fileTimeNamespace is the session-store namespace holding read stamps:
// key = absolute path, value = JSON readStamp.
const fileTimeNamespace = "filetime"

// readStamp records what a file looked like when this session last read it.
// The write tools compare it with the file on disk so the model never
// overwrites a file it has not seen, or one someone changed behind its back.
type readStamp struct {
	MTime  time.Time `json:"mtime"`
	Size   int64     `json:"size"`
	ReadAt time.Time `json:"readAt"`
}

// memStamps holds read stamps when the host runs without a session store
// (tc.Store == nil): keyed by session id, then absolute path. It is
// process-wide on purpose — a store-less host (tests, one-shot CLI calls)
// has no other place that outlives a single call, and read stamps are only
// useful across calls. Stamps of different sessions never mix.
var memStamps = struct {
	sync.Mutex
	m map[string]map[string]readStamp
}{m: map[string]map[string]readStamp{}}

// recordRead stamps path as read by the call's session, with the file's
// current modification time and size.
func recordRead(ctx context.Context, tc *runtime.Context, path string) error {
	info, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("record read of %s: %w", path, err)
	}
	st := readStamp{MTime: info.ModTime(), Size: info.Size(), ReadAt: time.Now()}
	if tc.Store == nil {
		memStamps.Lock()
		defer memStamps.Unlock()
		s := memStamps.m[tc.SessionID]
		if s == nil {
			s = map[string]readStamp{}
			memStamps.m[tc.SessionID] = s
		}
		s[path] = st
		return nil
	}
	b, err := json.Marshal(st)
	if err != nil {
		return fmt.Errorf("record read of %s: %w", path, err)
	}
	if err := tc.Store.Put(ctx, storeSession(tc), fileTimeNamespace, path, b); err != nil {
		return fmt.Errorf("record read of %s: %w", path, err)
	}
	return nil
}

// lookupStamp returns the session's read stamp of path.
func lookupStamp(ctx context.Context, tc *runtime.Context, path string) (readStamp, bool, error) {
	if tc.Store == nil {
		memStamps.Lock()
		defer memStamps.Unlock()
		st, ok := memStamps.m[tc.SessionID][path]
		return st, ok, nil
	}
	b, ok, err := tc.Store.Get(ctx, storeSession(tc), fileTimeNamespace, path)
	if err != nil || !ok {
		return readStamp{}, false, err
	}
	var st readStamp
	if err := json.Unmarshal(b, &st); err != nil {
		return readStamp{}, false, fmt.Errorf("decode read stamp of %s: %w", path, err)
	}
	return st, true, nil
}

// storeSession is the session id used as the store bucket; the store
// rejects an empty id, and a host without sessions still deserves stamps.
func storeSession(tc *runtime.Context) string {
	if tc.SessionID == "" {
		return "default"
	}
	return tc.SessionID
}

// assertFresh fails unless the session has read path and the file's
// modification time and size are still what they were then. The messages
// tell the model what to do next, as OpenCode's FileTime.assert does.
func assertFresh(ctx context.Context, tc *runtime.Context, path string) error {
	st, ok, err := lookupStamp(ctx, tc, path)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("You must read the file %s before overwriting it. Use the read tool first", path)
	}
	info, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("check %s before writing: %w", path, err)
	}
	if !info.ModTime().Equal(st.MTime) || info.Size() != st.Size {
		return fmt.Errorf("File %s has been modified since it was last read.\nLast modification: %s (%d bytes)\nLast read: %s (%d bytes then)\n\nPlease read the file again before modifying it.",
			path, info.ModTime().UTC().Format(time.RFC3339Nano), info.Size(),
			st.ReadAt.UTC().Format(time.RFC3339Nano), st.Size)
	}
	return nil
}
