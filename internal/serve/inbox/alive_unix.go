//go:build unix

package inbox

import (
	"os"
	"syscall"
)

// processAlive reports whether pid runs as this user: signal 0 checks
// without sending anything, and fails with EPERM for another user's.
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	return p.Signal(syscall.Signal(0)) == nil
}
