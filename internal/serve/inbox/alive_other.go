//go:build !unix

package inbox

import "os"

// processAlive reports whether pid runs; on Windows FindProcess opens the
// process, which fails when there is none (or it is not this user's to
// open).
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	_ = p.Release()
	return true
}
