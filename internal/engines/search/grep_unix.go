//go:build unix

package search

import (
	"io"
	"os"
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
func openForGrep(e *Entry, path string, scratch *[]byte) (grepFileHandle, error) {
	for {
		var fd int
		var err error
		if e.target == "" && e.dir.ok {
			fd, err = e.dir.openat(e.name, grepOpenFlags, scratch)
		} else {
			fd, err = syscall.Open(path, grepOpenFlags, 0)
		}
		if err == syscall.EINTR {
			continue
		}
		return grepFileHandle(fd), err
	}
}

// grepOpenFlags open a file for reading without following a link, and
// without blocking: a FIFO put in place of a file the walk listed would
// otherwise hold the open until a writer came, for ever if none does.
const grepOpenFlags = unix.O_RDONLY | unix.O_CLOEXEC | unix.O_NOFOLLOW | unix.O_NONBLOCK | unix.O_NOCTTY

// ignoreOpenFlags open an ignore file without following a link or
// blocking.
const ignoreOpenFlags = os.O_RDONLY | unix.O_NOFOLLOW | unix.O_NONBLOCK

// grepIsRegular reports whether the open file is a regular file. grep asks
// once a file has filled a whole read: a smaller one has been read to its
// end already, and asking every file would be a system call more per
// file.
func grepIsRegular(h grepFileHandle) bool {
	var st syscall.Stat_t
	for {
		err := syscall.Fstat(int(h), &st)
		if err == syscall.EINTR {
			continue
		}
		return err == nil && st.Mode&syscall.S_IFMT == syscall.S_IFREG
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

// openatDir opens the directory name inside the directory parentfd, not
// following a link (path is only for errors).
func openatDir(parentfd int, name, path string) (int, error) {
	for {
		fd, err := unix.Openat(parentfd, name, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_DIRECTORY|unix.O_NOFOLLOW, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return -1, &os.PathError{Op: "open", Path: path, Err: err}
		}
		return fd, nil
	}
}
