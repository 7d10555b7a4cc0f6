//go:build unix

package builtins

import (
	"io"
	"syscall"

	"golang.org/x/sys/unix"
)

// grepFileHandle reads a file with bare system calls. os.Open costs three
// more per file (a non-blocking fcntl and the netpoller's register and
// unregister), which on a tree of ten thousand small files is a third of
// grep's time; files are only ever read sequentially here, so the poller
// buys nothing.
type grepFileHandle int

// openForGrep opens e for reading: through the walk's descriptor of its
// directory when it has one (openat resolves one name, where a path is
// resolved from the root at every open — a third of a literal search's
// time on a deep tree), else path. O_NOFOLLOW refuses a symbolic link in
// the last component: the walker hands over files it has resolved, so a
// link there was put in after the walker looked; a link's target is
// opened by its resolved path.
func openForGrep(e *walkEntry, path string, scratch *[]byte) (grepFileHandle, error) {
	for {
		var fd int
		var err error
		if e.target == "" && e.dir.ok {
			fd, err = e.dir.openat(e.name, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NOFOLLOW, scratch)
		} else {
			fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NOFOLLOW, 0)
		}
		if err == syscall.EINTR {
			continue
		}
		return grepFileHandle(fd), err
	}
}

// Read reads once; 0 bytes means end of file.
func (h grepFileHandle) Read(p []byte) (int, error) {
	for {
		n, err := syscall.Read(int(h), p)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return 0, err
		}
		if n == 0 && len(p) > 0 {
			return 0, io.EOF
		}
		return n, nil
	}
}

func (h grepFileHandle) Close() error { return syscall.Close(int(h)) }
