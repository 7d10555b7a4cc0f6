package wasm

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// ErrClosed is returned by work started on an Engine after Close.
var ErrClosed = errors.New("wasm host is closed")

// lifecycle lets Close stop an Engine safely while other goroutines compile
// modules or watch folders. Compiles use the host's wazero compilation
// cache, and closing that cache under a compile crashes the process (a nil
// map inside wazero), so every compile, discovery and watch is counted
// work: Close refuses new work, cancels the host's context, waits for the
// work under way, and only then closes modules and the cache.
type lifecycle struct {
	ctx    context.Context // done when Close starts
	cancel context.CancelFunc

	mu       sync.Mutex
	closing  bool
	released bool // modules and cache closed
	work     sync.WaitGroup
}

func (l *lifecycle) init() { l.ctx, l.cancel = context.WithCancel(context.Background()) }

// begin registers work. The context it returns ends when ctx does or the
// host closes; call done when the work is finished.
func (h *Engine) begin(ctx context.Context) (context.Context, func(), error) {
	l := &h.life
	l.mu.Lock()
	if l.closing {
		l.mu.Unlock()
		return nil, nil, ErrClosed
	}
	l.work.Add(1)
	l.mu.Unlock()
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(l.ctx, cancel)
	return ctx, func() {
		stop()
		cancel()
		l.work.Done()
	}, nil
}

// Close stops the host: new loads, compiles and watches fail with
// ErrClosed; watches under way return; compiles under way are cancelled
// where wazero allows and waited for. Then every module is unloaded (calls
// in flight finish first) and the compilation cache closed.
//
// When ctx ends before the work under way does, Close returns an error and
// leaves modules and cache open rather than pull them from under a compile;
// a later Close finishes the job. Calling Close again after it succeeded
// does nothing.
func (h *Engine) Close(ctx context.Context) error {
	l := &h.life
	l.mu.Lock()
	l.closing = true
	l.mu.Unlock()
	l.cancel()

	waited := make(chan struct{})
	go func() {
		l.work.Wait()
		close(waited)
	}()
	select {
	case <-waited:
	case <-ctx.Done():
		return fmt.Errorf("close wasm host: compiles still running: %w; modules and cache left open", ctx.Err())
	}

	l.mu.Lock()
	if l.released {
		l.mu.Unlock()
		return nil
	}
	l.released = true
	l.mu.Unlock()

	h.mu.Lock()
	mods := h.modules
	h.modules = map[string]*module{}
	pmods, hooks := h.pluginMods, h.pluginHooks
	h.pluginMods, h.pluginHooks = nil, nil
	h.mu.Unlock()
	for _, hk := range hooks {
		hk.close()
	}
	for _, m := range mods {
		m.close(ctx)
	}
	for _, m := range pmods {
		m.close(ctx)
	}
	if h.cache != nil {
		if err := h.cache.Close(ctx); err != nil {
			return fmt.Errorf("close wasm compilation cache: %w", err)
		}
	}
	return nil
}
