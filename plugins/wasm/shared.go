package wasm

import (
	"context"
	"path/filepath"
	"sync"

	"github.com/toolhost/toolhost/hostfns"
	"github.com/toolhost/toolhost/runtime/source"
)

// Shared is the one Engine a host's wasm tools and plugins share (a
// module loaded by both compiles once, and one pool count covers both),
// made when the first of them asks for it: a host with neither makes
// none, so it creates no compilation cache on disk. The zero value is not
// ready; make one with NewShared.
type Shared struct {
	opts EngineOptions

	mu sync.Mutex
	e  *Engine // nil until Engine is first called
}

// EngineOptionsFor is what a host gives the engine its wasm tools and
// plugins share: its cache directory's wasm/, its config and logger, and
// the embedder's host functions funcs (nil: none).
func EngineOptionsFor(env source.Env, funcs *hostfns.Set) EngineOptions {
	return EngineOptions{CacheDir: filepath.Join(env.CacheDir, "wasm"), Config: env.Config, Logger: env.Logger, HostFuncs: funcs}
}

// NewShared returns a Shared that makes its Engine from opts.
func NewShared(opts EngineOptions) *Shared { return &Shared{opts: opts} }

// Engine returns the shared Engine, making it on the first call.
func (s *Shared) Engine() *Engine {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.e == nil {
		s.e = NewEngine(s.opts)
	}
	return s.e
}

func (s *Shared) made() *Engine {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.e
}

// Pools is the Engine's Pools, or nil when no Engine was made.
func (s *Shared) Pools() []PoolSize {
	if e := s.made(); e != nil {
		return e.Pools()
	}
	return nil
}

// Close closes the Engine, if one was made (Engine.Close says how calls
// and compiles under way end). Close it after the sources that use it.
func (s *Shared) Close(ctx context.Context) error {
	if e := s.made(); e != nil {
		return e.Close(ctx)
	}
	return nil
}
