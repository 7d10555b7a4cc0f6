package builtins

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"

	"golang.org/x/sys/unix"

	"github.com/toolhost/toolhost/internal/confine/fspath"
)

// noOpenat2 is set once openat2 turned out missing (Linux before 5.6, or
// a seccomp filter that refuses it): os.Root does the work from then on.
var noOpenat2 atomic.Bool

// openBeneath opens rel (relative, with no links: a resolved path's part
// below root) for reading inside root, the kernel refusing any link or
// ".." on the way (openat2 with RESOLVE_BENEATH and RESOLVE_NO_SYMLINKS):
// the same guarantee os.Root gives, in fewer system calls — os.Root's Open
// makes the runtime try to register every file with its poller, four fcntl
// calls and an epoll_ctl that fails for a regular file. The open does not
// block (a FIFO swapped in since the caller looked would wait for a
// writer for ever), and what is not a regular file is refused with err.
// ok is false when it could not open rel for another reason: the caller
// then opens through os.Root, which reports the error or follows a link
// swapped in since rel was resolved, confined the same way.
func openBeneath(root, rel string) (f io.ReadCloser, ok bool, err error) {
	if noOpenat2.Load() {
		return nil, false, nil
	}
	dir, err := unix.Open(root, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, false, nil
	}
	defer unix.Close(dir)
	fd, err := unix.Openat2(dir, rel, &unix.OpenHow{
		Flags:   unix.O_RDONLY | unix.O_CLOEXEC | unix.O_NOCTTY | unix.O_NONBLOCK,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	})
	if err != nil {
		if err == unix.ENOSYS || err == unix.EPERM {
			noOpenat2.Store(true)
		}
		return nil, false, nil
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return nil, false, nil
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		unix.Close(fd)
		return nil, true, fmt.Errorf("%s: %w", filepath.Join(root, rel), fspath.ErrNotRegular)
	}
	return &regularFile{fd: fd, size: st.Size, path: filepath.Join(root, rel), ident: fspath.FileID{Dev: uint64(st.Dev), Ino: st.Ino}}, true, nil
}

// regularFile is a regular file openBeneath opened, read with plain system
// calls: an os.File would ask for the descriptor's flags and want
// O_NONBLOCK cleared (which does not change how a regular file reads), and
// its reader reads again after the end, twice through a bufio.Reader. The
// size the open's fstat gave tells the end: a read that comes back short
// exactly there is the last one, so a page of a small file is one read.
// A file that grows meanwhile is read to where it ended when it was
// opened, or further.
type regularFile struct {
	fd    int
	size  int64
	off   int64
	eof   bool
	path  string
	ident fspath.FileID // from the open's fstat
}

// id is the file's device and inode, for openedIs.
func (f *regularFile) id() fspath.FileID { return f.ident }

func (f *regularFile) Read(p []byte) (int, error) {
	if f.eof {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	for {
		n, err := unix.Read(f.fd, p)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return 0, &os.PathError{Op: "read", Path: f.path, Err: err}
		}
		f.off += int64(n)
		// A short read that ends exactly at the size the open saw is the
		// end; anything else reads on to a read of nothing. A size that
		// does not tell the length (0 for /proc and /sys files, a FUSE
		// file that returns more) then costs a read, never a cut.
		if n == 0 || (n < len(p) && f.size > 0 && f.off == f.size) {
			f.eof = true
			if n == 0 {
				return 0, io.EOF
			}
		}
		return n, nil
	}
}

func (f *regularFile) Close() error {
	if f.fd < 0 {
		return os.ErrClosed
	}
	err := unix.Close(f.fd)
	f.fd = -1
	return err
}
