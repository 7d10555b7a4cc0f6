//go:build unix

package trust

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A link to a FIFO would block the scan (and every host start) for ever.
func TestALinkToAFIFOIsNotRead(t *testing.T) {
	t.Parallel()
	root, o := project(t)
	fifo := filepath.Join(root, "src", "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if err := os.Symlink("../../src/fifo", filepath.Join(root, ".toolhost/tool/f.wasm")); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := Scan(o); done <- err }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Scan blocked on a link to a FIFO")
	}
}
