package wasm

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

func TestASharedEngineIsMadeOnceWhenFirstAskedFor(t *testing.T) {
	t.Parallel()
	cache := filepath.Join(t.TempDir(), "wasm")
	s := NewShared(EngineOptions{CacheDir: cache})
	if s.Pools() != nil {
		t.Error("Pools before any Engine was made is not nil")
	}
	if err := s.Close(context.Background()); err != nil {
		t.Errorf("Close with no Engine made: %v", err)
	}
	if _, err := os.Stat(cache); !os.IsNotExist(err) {
		t.Errorf("the cache directory exists before an Engine was asked for (stat: %v)", err)
	}
	e := s.Engine()
	if s.Engine() != e {
		t.Fatal("a second Engine call made a second Engine")
	}
	if _, err := os.Stat(cache); err != nil {
		t.Errorf("the Engine made no cache directory: %v", err)
	}
	if err := s.Close(context.Background()); err != nil {
		t.Fatalf("Close: %v", err)
	}
}
