package source

import (
	"context"
	"fmt"

	"github.com/toolhost/toolhost/runtime"
)

// Add adds what a source of kind loaded to reg: its tools under kind, in
// order, then its hooks.
func Add(reg *runtime.Registry, kind runtime.Source, l Loaded) {
	reg.Add(kind, l.Tools...)
	for _, h := range l.Hooks {
		reg.AddHook(h)
	}
}

// FollowInto keeps reg in step with every source of srcs that is a
// Watcher, from one Follow loop, until ctx ends: each change replaces the
// tools of its source's kind in one step and swaps its hooks.
func FollowInto(ctx context.Context, reg *runtime.Registry, srcs []Source, opts FollowOptions) {
	var ws []Watcher
	var kinds []runtime.Source
	for _, s := range srcs {
		if w, ok := s.(Watcher); ok {
			ws = append(ws, w)
			kinds = append(kinds, s.Kind())
		}
	}
	Follow(ctx, ws, opts, func(i int, c Change) {
		reg.Replace(kinds[i], c.Remove, c.Add...)
		if len(c.OldHooks) > 0 || len(c.NewHooks) > 0 {
			reg.SwapHooks(c.OldHooks, c.NewHooks)
		}
	})
}

// LoadInto loads s and adds what it loaded to reg (Add), returning it so
// the caller can keep its load errors. An error names s's kind.
func LoadInto(ctx context.Context, reg *runtime.Registry, s Source) (Loaded, error) {
	l, err := s.Load(ctx)
	if err != nil {
		return Loaded{}, fmt.Errorf("load %s tools: %w", s.Kind(), err)
	}
	Add(reg, s.Kind(), l)
	return l, nil
}
