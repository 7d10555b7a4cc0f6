package lifecycle

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestCloseStopsWatchersThenClosesInReverseOrderOnce(t *testing.T) {
	t.Parallel()
	l := New()
	var order []string
	stopped := make(chan struct{})
	l.Go(func(ctx context.Context) {
		<-ctx.Done()
		order = append(order, "watcher")
		close(stopped)
	})
	for _, name := range []string{"store", "engine", "tools"} {
		l.OnClose(name, func(context.Context) error {
			order = append(order, name)
			if name == "engine" {
				return errors.New("busy")
			}
			return nil
		})
	}
	err := l.Close(t.Context())
	if err == nil || !strings.Contains(err.Error(), "close engine: busy") {
		t.Fatalf("Close = %v, want the engine's error named", err)
	}
	<-stopped
	if want := []string{"watcher", "tools", "engine", "store"}; !slices.Equal(order, want) {
		t.Errorf("order = %v, want %v", order, want)
	}
	if again := l.Close(t.Context()); again != err {
		t.Errorf("second Close = %v, want the first call's %v", again, err)
	}
	if len(order) != 4 {
		t.Errorf("second Close closed again: %v", order)
	}
}

func TestCloseStopsWaitingForAWatcherWhenItsContextEnds(t *testing.T) {
	t.Parallel()
	l := New()
	release := make(chan struct{})
	defer close(release)
	l.Go(func(context.Context) { <-release }) // ignores its context
	closed := false
	l.OnClose("store", func(ctx context.Context) error {
		closed = true
		return ctx.Err()
	})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := l.Close(ctx); !errors.Is(err, context.Canceled) || !closed {
		t.Errorf("Close = %v (closed %v), want the closers called with the ended context", err, closed)
	}
}

func TestCloseOnErrorClosesOnlyWhenTheConstructorFails(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		err        error
		wantClosed bool
	}{
		{"a constructor that succeeds keeps what it opened", nil, false},
		{"a constructor that fails closes what it opened, though its context ended", errors.New("later step"), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithCancel(t.Context())
			l := New()
			closed := false
			construct := func() (err error) {
				defer l.CloseOnError(ctx, &err)
				l.OnClose("store", func(ctx context.Context) error {
					closed = ctx.Err() == nil
					return nil
				})
				cancel()
				return tt.err
			}
			construct()
			if closed != tt.wantClosed {
				t.Errorf("closed (with a live context) = %v, want %v", closed, tt.wantClosed)
			}
		})
	}
}
