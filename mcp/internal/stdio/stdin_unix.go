//go:build unix && !linux

package stdio

import (
	"io"
	"os"
	"syscall"
)

// StdinInput returns f read through the runtime's network poller when it
// is a pipe or a socket (an MCP client's stdin always is): a read then
// parks the goroutine instead of holding a thread in the kernel. Other
// files (a terminal, a regular file) are returned as they are. (Linux
// waits between calls in poll(2) instead: pollinput_linux.go.)
func StdinInput(f *os.File) io.ReadCloser {
	if !isPipeOrSocket(f) {
		return f
	}
	// Fd leaves the descriptor blocking; the new File, over it made
	// non-blocking, registers with the poller.
	fd := int(f.Fd())
	if err := syscall.SetNonblock(fd, true); err != nil {
		return f
	}
	return os.NewFile(uintptr(fd), f.Name())
}
