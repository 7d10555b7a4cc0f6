package host

import (
	"context"
	"fmt"
	"sync"
)

// lifecycle records what a Host opened, in order, and the watchers it
// runs, so that Close — and New when a later step fails — can undo it:
// watchers are cancelled and waited for first, then everything opened is
// closed in reverse order (MCP servers, wasm modules, the session store).
type lifecycle struct {
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

func (l *lifecycle) init() { l.ctx, l.cancel = context.WithCancel(context.Background()) }

// onClose records something to close on Close, after what is recorded
// later.
func (l *lifecycle) onClose(what string, fn func(context.Context) error) {
	l.mu.Lock()
	l.closers = append(l.closers, closer{what, fn})
	l.mu.Unlock()
}

// goWatch runs fn in a goroutine until Close, which cancels its context and
// waits for it to return.
func (l *lifecycle) goWatch(fn func(ctx context.Context)) {
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		fn(l.ctx)
	}()
}

// Close stops the watchers and waits for them, then closes, in reverse
// order of opening, MCP servers, compiled wasm modules (waiting for
// compiles under way; calls in flight finish first), the language servers
// (asked to shut down, then ended) and the session store.
// ctx bounds the waiting: when it ends, what is still busy is left open
// and the error says so. Calling Close again returns the first call's
// result.
func (h *Host) Close(ctx context.Context) error {
	l := &h.life
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
		// The watchers stop at their next look; the modules they use are
		// closed below only once their compiles have finished.
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
