package source

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/toolhost/toolhost/runtime"
)

// fileWatcher reports a change whenever the files in its folder differ
// from its last look, and counts its looks.
type fileWatcher struct {
	folder string
	mu     sync.Mutex
	looks  int
	last   int
}

func (w *fileWatcher) Folders() []string { return []string{w.folder} }

func (w *fileWatcher) Look(_ context.Context, apply func(Change)) {
	w.mu.Lock()
	w.looks++
	entries, _ := os.ReadDir(w.folder)
	n := len(entries)
	changed := n != w.last
	w.last = n
	w.mu.Unlock()
	if changed {
		apply(Change{Add: []runtime.Tool{runtime.Define[struct{}]("t", "d", nil)}})
		return
	}
	apply(Change{}) // nothing: Follow must not pass it on
}

func (w *fileWatcher) lookCount() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.looks
}

func TestFollowPassesOnChangesFromTheWatcherThatFoundThem(t *testing.T) {
	t.Parallel()
	for _, mode := range []struct {
		name string
		opts FollowOptions
	}{
		{"file-system events, the timer an hour away", FollowOptions{Interval: time.Hour}},
		{"polling alone", FollowOptions{Interval: 20 * time.Millisecond, NoEvents: true}},
	} {
		t.Run(mode.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			quiet := &fileWatcher{folder: filepath.Join(root, "quiet", "tool")}
			// The folder does not exist yet: Follow watches its parent's
			// parent, so creating it is seen.
			busy := &fileWatcher{folder: filepath.Join(root, "busy", "tool")}
			os.MkdirAll(filepath.Join(root, "busy"), 0o755)
			got := make(chan int, 10)
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan struct{})
			go func() {
				defer close(done)
				Follow(ctx, []Watcher{quiet, busy}, mode.opts, func(i int, c Change) {
					if c.Empty() {
						t.Error("an empty change was passed on")
					}
					got <- i
				})
			}()
			// The first look happens at once and finds nothing.
			deadline := time.Now().Add(10 * time.Second)
			for quiet.lookCount() == 0 || busy.lookCount() == 0 {
				if time.Now().After(deadline) {
					t.Fatal("no first look")
				}
				time.Sleep(5 * time.Millisecond)
			}
			os.MkdirAll(busy.folder, 0o755)
			os.WriteFile(filepath.Join(busy.folder, "x.wasm"), []byte("x"), 0o644)
			select {
			case i := <-got:
				if i != 1 {
					t.Errorf("change came from watcher %d, want 1 (busy)", i)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the change was not seen")
			}
			cancel()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("Follow did not return when its context ended")
			}
		})
	}
}

func TestFollowWithoutWatchersReturnsAtOnce(t *testing.T) {
	t.Parallel()
	done := make(chan struct{})
	go func() {
		Follow(context.Background(), nil, FollowOptions{}, func(int, Change) { t.Error("apply called") })
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Follow with no watchers did not return")
	}
}

func TestToolsLoadsWhatItWasGivenUnderItsKind(t *testing.T) {
	t.Parallel()
	tool := runtime.Define[struct{}]("hello", "says hello", nil)
	s := Tools(runtime.SourceRuntime, tool)
	l, err := s.Load(context.Background())
	if err != nil || len(l.Tools) != 1 || l.Tools[0].ID() != tool.ID() || s.Kind() != runtime.SourceRuntime {
		t.Fatalf("Load = %+v, %v; kind %s", l, err, s.Kind())
	}
	if _, ok := s.(Watcher); ok {
		t.Error("a fixed set of tools claims to change")
	}
}

func TestANilTrustAdmitsEverything(t *testing.T) {
	t.Parallel()
	files := []string{"/p/.toolhost/tool/a.ts"}
	if got := AdmitFiles(nil, files); len(got) != 1 {
		t.Errorf("AdmitFiles(nil) = %v", got)
	}
	if !AdmitChange(nil) {
		t.Error("AdmitChange(nil) = false")
	}
}

// fakeTrust admits changes while ok and names its decisions by d.
type fakeTrust struct {
	ok bool
	d  string
}

func (f *fakeTrust) AdmitFiles(files []string) []string { return files }
func (f *fakeTrust) AdmitChange(map[string]string) bool { return f.ok }
func (f *fakeTrust) Decisions() string                  { return f.d }

func TestAHeldChangeIsRetriedOnlyOnceTheDecisionsChange(t *testing.T) {
	tr := &fakeTrust{d: "1"}
	var h Held
	if h.Retry(tr) {
		t.Error("nothing held, yet Retry asks to look again")
	}
	if h.Admit(tr, nil) {
		t.Fatal("an untrusted change admitted")
	}
	if h.Retry(tr) {
		t.Error("retried though no decision changed")
	}
	tr.d = "2" // a person decided something, not yet this
	if !h.Retry(tr) {
		t.Fatal("not retried after the decisions changed")
	}
	if h.Admit(tr, nil) {
		t.Fatal("admitted while still untrusted")
	}
	tr.d, tr.ok = "3", true
	if !h.Retry(tr) || !h.Admit(tr, nil) {
		t.Fatal("a trusted change is not retried and admitted")
	}
	if h.Retry(tr) {
		t.Error("an admitted change is retried again")
	}
	var none Held
	if !none.Admit(nil, nil) || none.Retry(nil) {
		t.Error("a nil Trust must admit everything and hold nothing")
	}
}
