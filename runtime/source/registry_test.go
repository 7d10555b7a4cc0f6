package source

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/toolhost/toolhost/runtime"
)

// swapSource is a watching source that, on its first look, replaces its
// tool "old" with "new".
type swapSource struct {
	fixed
	looked chan struct{}
}

func (*swapSource) Folders() []string { return nil }

func (s *swapSource) Look(_ context.Context, apply func(Change)) {
	select {
	case <-s.looked:
		return
	default:
	}
	apply(Change{Remove: []string{"old"}, Add: []runtime.Tool{runtime.Define[struct{}]("new", "the new tool", nil)}})
	close(s.looked)
}

func TestFollowIntoReplacesTheToolsOfTheWatchingSourceInTheRegistry(t *testing.T) {
	t.Parallel()
	reg, err := runtime.NewRegistry(runtime.Options{DataDir: t.TempDir(), Directory: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	still := Tools(runtime.SourceBuiltin, runtime.Define[struct{}]("still", "a tool that stays", nil))
	watching := &swapSource{fixed: fixed{runtime.SourceJS, []runtime.Tool{runtime.Define[struct{}]("old", "the old tool", nil)}}, looked: make(chan struct{})}
	for _, s := range []Source{still, watching} {
		l, err := s.Load(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		Add(reg, s.Kind(), l)
	}
	if !reg.Has("old") || !reg.Has("still") {
		t.Fatalf("after Add: ids %v, want old and still", reg.IDs())
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		FollowInto(ctx, reg, []Source{still, watching}, FollowOptions{NoEvents: true, Interval: time.Hour})
		close(done)
	}()
	select {
	case <-watching.looked:
	case <-time.After(10 * time.Second):
		t.Fatal("the watching source was never looked at")
	}
	cancel()
	<-done
	if reg.Has("old") || !reg.Has("new") || !reg.Has("still") {
		t.Errorf("after the change: ids %v, want new and still", reg.IDs())
	}
}

// failing is a source whose Load fails.
type failing struct{ fixed }

func (failing) Load(context.Context) (Loaded, error) { return Loaded{}, errors.New("no folder") }

func TestLoadIntoAddsWhatASourceLoadedOrNamesItsKindWhenItFails(t *testing.T) {
	t.Parallel()
	reg, err := runtime.NewRegistry(runtime.Options{DataDir: t.TempDir(), Directory: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	tool := runtime.Define[struct{}]("loaded", "a tool that loads", nil)
	l, err := LoadInto(t.Context(), reg, Tools(runtime.SourceJS, tool))
	if err != nil || len(l.Tools) != 1 || !reg.Has("loaded") {
		t.Fatalf("LoadInto = %d tools, %v; registry ids %v, want the tool loaded and added", len(l.Tools), err, reg.IDs())
	}
	if srcs := reg.Sources("loaded"); len(srcs) != 1 || srcs[0] != runtime.SourceJS {
		t.Errorf("the tool was added under %v, want its source's kind js", srcs)
	}
	_, err = LoadInto(t.Context(), reg, failing{fixed{kind: runtime.SourceMCP}})
	if err == nil || err.Error() != "load mcp tools: no folder" {
		t.Errorf("LoadInto of a failing source = %v, want the error naming its kind", err)
	}
}
