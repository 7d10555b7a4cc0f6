package runtime

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
)

type recordingWatcher struct {
	mu     sync.Mutex
	events []string
}

func (w *recordingWatcher) CallStarted(_ context.Context, c WatchedCall) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.events = append(w.events, "start "+c.Tool+" "+c.SessionID)
}

func (w *recordingWatcher) CallEnded(_ context.Context, c WatchedCall, res Result, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := res.Output
	if err != nil {
		out = "error"
	}
	w.events = append(w.events, "end "+c.Tool+" "+out)
}

func TestWatchCallsSeesEveryCallAndItsOutcomeUntilCancelled(t *testing.T) {
	t.Parallel()
	r := newTestRegistry(t, nil)
	r.Add(SourceBuiltin, echoTool("echo"))
	w := &recordingWatcher{}
	cancel := r.WatchCalls(w)
	if _, err := r.Call(t.Context(), Call{Tool: "echo", SessionID: "s1", Args: json.RawMessage(`{"text":"hi"}`)}); err != nil {
		t.Fatal(err)
	}
	// A call that fails validation still ends.
	if _, err := r.Call(t.Context(), Call{Tool: "echo", SessionID: "s1", Args: json.RawMessage(`{}`)}); err == nil {
		t.Fatal("invalid call succeeded")
	}
	cancel()
	if _, err := r.Call(t.Context(), Call{Tool: "echo", SessionID: "s1", Args: json.RawMessage(`{"text":"late"}`)}); err != nil {
		t.Fatal(err)
	}
	want := []string{"start echo s1", "end echo hi", "start echo s1", "end echo error"}
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.events) != len(want) {
		t.Fatalf("events %q, want %q", w.events, want)
	}
	for i := range want {
		if w.events[i] != want[i] {
			t.Errorf("event %d = %q, want %q", i, w.events[i], want[i])
		}
	}
}
