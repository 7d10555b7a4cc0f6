//go:build unix && !linux

package search

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// openWalkDir opens the directory at path, without following a link in
// its last component, for reading its entries. A bare open: os.OpenFile
// would also register the directory with the poller.
func openWalkDir(path string) (dirHandle, error) {
	for {
		fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_DIRECTORY|syscall.O_NOFOLLOW, 0)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return dirHandle{}, &os.PathError{Op: "open", Path: path, Err: err}
		}
		return dirHandle{f: os.NewFile(uintptr(fd), path), fd: fd, ok: true}, nil
	}
}

// openat opens name in the directory with flags.
func (d dirHandle) openat(name string, flags int, _ *[]byte) (int, error) {
	return unix.Openat(d.fd, name, flags, 0)
}

// openSubdir opens the directory name inside parent, not following a
// link: the subdirectory of the directory that was listed, even if a
// directory above it has been swapped for a link since (path is only for
// errors).
func openSubdir(parent dirHandle, name, path string) (dirHandle, error) {
	fd, err := openatDir(parent.fd, name, path)
	if err != nil {
		return dirHandle{}, err
	}
	return dirHandle{f: os.NewFile(uintptr(fd), path), fd: fd, ok: true}, nil
}
