package builtins

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestReadRefusesAFIFOInsteadOfWaitingForAWriter(t *testing.T) {
	t.Parallel()
	e := newFTEnv(t)
	fifo := filepath.Join(e.dir, "feed")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := e.call(t, Read(), readParams{FilePath: fifo})
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "named pipe (FIFO), not a regular file") {
			t.Fatalf("read of a FIFO: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("read of a FIFO waits for a writer")
	}
}
