package builtins

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/session"
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

// appendJSON appends st as json.Marshal writes it, without reflection:
// a read stamp is written on every read call.
func (st readStamp) appendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"mtime":"`...)
	b, err := st.MTime.AppendText(b)
	if err != nil {
		return nil, err
	}
	b = append(b, `","size":`...)
	b = strconv.AppendInt(b, st.Size, 10)
	b = append(b, `,"readAt":"`...)
	if b, err = st.ReadAt.AppendText(b); err != nil {
		return nil, err
	}
	return append(b, `"}`...), nil
}

// recordRead stamps path as read by the call's session, with the file's
// current modification time and size. The stamp is a deferred write
// (session.PutDeferred): visible to this process's next call at once,
// written to a shared store in batches, so a read-only call waits for no
// database transaction. A crash loses at most the store's write-behind
// window of stamps, and a lost stamp only makes the model read again.
func recordRead(ctx context.Context, tc *runtime.Context, path string) error {
	info, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("record read of %s: %w", path, err)
	}
	return recordReadOf(ctx, tc, path, info)
}

// recordReadOf is recordRead with the file's state as the caller saw it
// before reading. Should the file change between that look and the read,
// the stamp is older than what the model saw, so a later edit is refused
// as "modified since read" — the safe side.
func recordReadOf(ctx context.Context, tc *runtime.Context, path string, info os.FileInfo) error {
	st := readStamp{MTime: info.ModTime(), Size: info.Size(), ReadAt: time.Now()}
	store, err := sessionStore(tc)
	if err != nil {
		return fmt.Errorf("record read of %s: %w", path, err)
	}
	b, err := st.appendJSON(nil)
	if err != nil {
		return fmt.Errorf("record read of %s: %w", path, err)
	}
	if err := session.PutDeferred(ctx, store, storeSession(tc), fileTimeNamespace, path, b); err != nil {
		return fmt.Errorf("record read of %s: %w", path, err)
	}
	return nil
}

// lookupStamp returns the session's read stamp of path.
func lookupStamp(ctx context.Context, tc *runtime.Context, path string) (readStamp, bool, error) {
	store, err := sessionStore(tc)
	if err != nil {
		return readStamp{}, false, fmt.Errorf("look up read of %s: %w", path, err)
	}
	b, ok, err := store.Get(ctx, storeSession(tc), fileTimeNamespace, path)
	if err != nil || !ok {
		return readStamp{}, false, err
	}
	var st readStamp
	if err := json.Unmarshal(b, &st); err != nil {
		return readStamp{}, false, fmt.Errorf("decode read stamp of %s: %w", path, err)
	}
	return st, true, nil
}

// sessionStore returns the call's session store. A Registry and
// runtime.NewContext always set one; a Context built by hand without it
// cannot keep state between calls, and a write tool that forgot its reads
// would refuse every write, so the tools say what is missing instead.
func sessionStore(tc *runtime.Context) (session.Store, error) {
	if tc.Store == nil {
		return nil, errors.New("no session store in the tool context; build it with runtime.NewContext or run the tool through a Registry")
	}
	return tc.Store, nil
}

// storeSession is the session id the built-in tools keep their state
// under (read stamps, todos): the store rejects an empty id, and a call
// without a session (a one-shot `toolhost call`) still deserves stamps and
// a todo list, shared by every session-less call using the same store.
func storeSession(tc *runtime.Context) string {
	if tc.SessionID == "" {
		return "default"
	}
	return tc.SessionID
}

// assertFresh fails unless the session has read path and the file's
// modification time and size are still what they were then. The messages
// tell the model what to do next, as OpenCode's FileTime.assert does, and
// name the read tool as the model sees it (tc.Front) with the exact call:
// over MCP the model also has its client's own read tool, whose reads
// toolhost never sees. A front end that skips the check
// (Front.SkipReadCheck) lets a file never read here be written, as long as
// the read rules let it be read (askReadFor: its content is shown in the
// diff); one read here and changed since is refused all the same.
func assertFresh(ctx context.Context, tc *runtime.Context, path string) error {
	st, ok, err := lookupStamp(ctx, tc, path)
	if err != nil {
		return err
	}
	if !ok {
		if tc.Front.SkipReadCheck {
			// Not read here, yet its content is about to be shown in
			// the diff: judged as a read of it would be.
			return askReadFor(ctx, tc, path)
		}
		return fmt.Errorf("You must read the file %s before overwriting it. Read it with the %s tool first: %s %s", path, tc.Front.ToolName(readToolName), tc.Front.ToolName(readToolName), readCall(path))
	}
	info, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("check %s before writing: %w", path, err)
	}
	if !info.ModTime().Equal(st.MTime) || info.Size() != st.Size {
		return fmt.Errorf("File %s has been modified since it was last read.\nLast modification: %s (%d bytes)\nLast read: %s (%d bytes then)\n\nPlease read the file again with %s %s before modifying it.",
			path, info.ModTime().UTC().Format(time.RFC3339Nano), info.Size(),
			st.ReadAt.UTC().Format(time.RFC3339Nano), st.Size, tc.Front.ToolName(readToolName), readCall(path))
	}
	return nil
}

// readCall is the read tool's arguments for path, as the model writes them.
func readCall(path string) string {
	b, _ := json.Marshal(readParams{FilePath: path}) // a struct of one string always encodes
	return string(b)
}

// readFreshly reports whether the session has read path and the file is
// unchanged since (assertFresh's test, without its messages).
func readFreshly(ctx context.Context, tc *runtime.Context, path string) bool {
	st, ok, err := lookupStamp(ctx, tc, path)
	if err != nil || !ok {
		return false
	}
	info, err := os.Stat(path)
	return err == nil && info.ModTime().Equal(st.MTime) && info.Size() == st.Size
}
