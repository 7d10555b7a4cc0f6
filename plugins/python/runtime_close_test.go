package python_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/toolhost/toolhost/plugins/python"
	"github.com/toolhost/toolhost/plugins/python/pytooltest"
)

// Closing a runtime while instances are starting and running must stop
// them and wait for them before wazero's runtime is closed: closing it
// under a running guest raced inside wazero (the race detector caught it
// on a host closed while a pool refilled in the background).
func TestCloseStopsRunningAndStartingInstances(t *testing.T) {
	r := python.NewRuntime(pytooltest.Engine(t), pytooltest.CompiledDir())
	ctx := context.Background()
	first, err := r.StartLoop(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		ends = []<-chan struct{}{first}
	)
	for range 4 { // starts racing with Close, as a pool refill does
		wg.Add(1)
		go func() {
			defer wg.Done()
			done, err := r.StartLoop(ctx)
			switch {
			case err == nil:
				mu.Lock()
				ends = append(ends, done)
				mu.Unlock()
			case !errors.Is(err, python.ErrEngine) && !errors.Is(err, context.Canceled):
				t.Errorf("a start refused by Close says %v, want ErrEngine", err)
			}
		}()
	}
	time.Sleep(50 * time.Millisecond)
	if err := r.Close(ctx); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	for _, done := range ends {
		select {
		case <-done:
		default:
			t.Fatal("an instance still runs after Close returned")
		}
	}
	if _, err := r.StartLoop(ctx); !errors.Is(err, python.ErrEngine) {
		t.Fatalf("a start after Close = %v, want ErrEngine", err)
	}
}
