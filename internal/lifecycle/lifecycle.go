// Package lifecycle records what a long-lived assembly (a host) opened, in
// order, and the watcher goroutines it runs, so that one Close — or the
// constructor, when a later step fails — undoes it: watchers are cancelled
// and waited for first, then everything opened is closed in reverse order.
// It knows no toolhost type; package host uses it for the session store,
// language servers, engines and tool sources (CloseOnError when New fails).
package lifecycle

import (
	"context"
	"fmt"
	"sync"
)

// A Lifecycle is what to undo. Make one with New; the zero value is not
// ready.
type Lifecycle struct {
	ctx    context.Context // ends when Close starts; watchers run under it
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu      sync.Mutex
	closers []closer
	done    bool  // Close finished
	err     error // Close's result, returned again by later calls
}

type closer struct {
	what  string
	close func(context.Context) error
}

// New returns an empty Lifecycle.
func New() *Lifecycle {
	l := &Lifecycle{}
	l.ctx, l.cancel = context.WithCancel(context.Background())
	return l
}

// OnClose records something to close on Close, after what is recorded
// later; what names it in Close's error.
func (l *Lifecycle) OnClose(what string, fn func(context.Context) error) {
	l.mu.Lock()
	l.closers = append(l.closers, closer{what, fn})
	l.mu.Unlock()
}

// Go runs fn in a goroutine until Close, which cancels its context and
// waits for it to return.
func (l *Lifecycle) Go(fn func(ctx context.Context)) {
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		fn(l.ctx)
	}()
}

// CloseOnError closes l when *err is set. A constructor defers it right
// after New, naming its error result, so a step that fails undoes what
// the earlier steps opened before the constructor returns. The closers
// get ctx's values but not its end: a cancelled start still closes.
func (l *Lifecycle) CloseOnError(ctx context.Context, err *error) {
	if *err != nil {
		l.Close(context.WithoutCancel(ctx))
	}
}

// Close stops the watchers and waits for them, then closes what was
// recorded, in reverse order, and returns the first error, naming what
// failed. ctx bounds the waiting: when it ends, the watchers are no longer
// waited for (they stop at their next look) and the closers are called
// with the ended ctx, so what is still busy is left open and the error
// says so. Calling Close again returns the first call's result.
func (l *Lifecycle) Close(ctx context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.done {
		return l.err
	}
	l.cancel()
	stopped := make(chan struct{})
	go func() {
		l.wg.Wait()
		close(stopped)
	}()
	select {
	case <-stopped:
	case <-ctx.Done():
	}
	var first error
	for i := len(l.closers) - 1; i >= 0; i-- {
		c := l.closers[i]
		if err := c.close(ctx); err != nil && first == nil {
			first = fmt.Errorf("close %s: %w", c.what, err)
		}
	}
	l.closers = nil
	l.done, l.err = true, first
	return first
}
