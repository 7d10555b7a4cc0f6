//go:build unix

package lsp

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toolhost/toolhost/internal/engines/lsp/lsptest"
)

// TestCloseEndsWhatTheServerStarted: a server's children (a worker, a
// build it runs) must not outlive toolhost, nor keep its output open so
// the server is never reaped.
func TestCloseEndsWhatTheServerStarted(t *testing.T) {
	t.Parallel()
	m, log := fakeManager(t)
	root := t.TempDir()
	f := write(t, filepath.Join(root, "a.fk"), "ORPHAN\n")
	m.Diagnose(context.Background(), root, []string{f})
	var child int
	for _, l := range lsptest.Log(t, log) {
		if fs := strings.Fields(l); len(fs) == 3 && fs[1] == "orphan" {
			child, _ = strconv.Atoi(fs[2])
		}
	}
	if child == 0 {
		t.Skipf("the fake server could not start a child (no sleep?): %q", lsptest.Log(t, log))
	}
	m.Close(context.Background())
	for deadline := time.Now().Add(generous); alive(child); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			if p, err := os.FindProcess(child); err == nil {
				p.Kill()
			}
			t.Fatalf("the server's child %d outlived Close", child)
		}
	}
}

// alive reports whether pid runs (a zombie waiting to be reaped does not).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		p, err := os.FindProcess(pid)
		return err == nil && p.Signal(syscall.Signal(0)) == nil
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}
