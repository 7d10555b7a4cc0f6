package search

import (
	"bytes"
	"encoding/binary"
	"io/fs"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// On Linux the walk lists directories with getdents64 into a worker's
// reusable buffer and keeps a directory's names in one string, instead of
// os.File.ReadDir's two allocations per entry plus a File per directory
// (whose creation also asks fcntl whether the descriptor blocks). On the
// Go tree that was most of a search's garbage, and the collections it
// caused stopped both workers two or three times per search.

// noOpenat2 is set once openat2 turned out missing (Linux before 5.6, or
// a seccomp filter that refuses it): openWalkDir uses open with
// O_NOFOLLOW from then on. (The read tool's openBeneath, in builtins,
// learns the same on its own.)
var noOpenat2 atomic.Bool

// dirHandle is a directory the walk holds open while it visits the
// directory's entries, for openForGrep.
type dirHandle struct {
	fd int
	ok bool
}

// openWalkDir opens the directory at path, which the walk resolved (no
// symbolic link in it), for reading its entries: the walk's root and the
// targets of directory links it follows. openat2's RESOLVE_NO_SYMLINKS
// refuses the path if any of its components has become a link since, so
// the directory read is the one that was checked; where openat2 is not
// available (kernels before 5.6, some seccomp filters) O_NOFOLLOW guards
// the last component. A bare open: os.OpenFile would also register the
// directory with the poller (three more system calls).
func openWalkDir(path string) (dirHandle, error) {
	const flags = unix.O_RDONLY | unix.O_CLOEXEC | unix.O_DIRECTORY | unix.O_NOFOLLOW
	for {
		var fd int
		var err error
		if !noOpenat2.Load() {
			fd, err = unix.Openat2(unix.AT_FDCWD, path, &unix.OpenHow{Flags: flags, Resolve: unix.RESOLVE_NO_SYMLINKS})
			if err == unix.ENOSYS || err == unix.EPERM { // see noOpenat2
				noOpenat2.Store(true)
				continue
			}
		} else {
			fd, err = unix.Open(path, flags, 0)
		}
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return dirHandle{}, &os.PathError{Op: "open", Path: path, Err: err}
		}
		return dirHandle{fd: fd, ok: true}, nil
	}
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
	return dirHandle{fd: fd, ok: true}, nil
}

func (d dirHandle) close() { syscall.Close(d.fd) }

// direntBuffer is the size of one getdents64 read: a directory of a few
// hundred entries in one system call.
const direntBuffer = 32 << 10

// entries lists the directory, "." and ".." left out, in the order the
// file system gives. The returned slice is sc.ents, valid until the next
// call with sc. On an error the entries read before it come with it.
func (d dirHandle) entries(sc *dirScratch) ([]dirEntry, error) {
	if sc.buf == nil {
		sc.buf = make([]byte, direntBuffer)
	}
	names, spans := sc.names[:0], sc.spans[:0]
	var readErr error
	for {
		n, err := syscall.Getdents(d.fd, sc.buf)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			readErr = &os.PathError{Op: "readdirent", Path: "", Err: err}
			break
		}
		if n <= 0 {
			break
		}
		names, spans = d.parseDirents(sc.buf[:n], names, spans)
	}
	// One string for the whole directory; each entry's name is a slice of it.
	all := string(names)
	ents := sc.ents[:0]
	for _, sp := range spans {
		ents = append(ents, dirEntry{name: all[sp.off : sp.off+sp.n], typ: sp.typ})
	}
	sc.names, sc.spans, sc.ents = names[:0], spans[:0], ents
	return ents, readErr
}

// Offsets in a struct linux_dirent64: d_ino (8 bytes), d_off (8), d_reclen
// (2), d_type (1), then the name, NUL-terminated, padded to 8 bytes.
const (
	direntIno    = 0
	direntReclen = 16
	direntType   = 18
	direntName   = 19
)

// parseDirents appends the names in buf (getdents64 records) to names and
// their places to spans. A malformed record ends the parse: the kernel
// writes whole records, so one only appears if the buffer was not its.
func (d dirHandle) parseDirents(buf, names []byte, spans []nameSpan) ([]byte, []nameSpan) {
	for len(buf) >= direntName {
		reclen := int(binary.NativeEndian.Uint16(buf[direntReclen:]))
		if reclen < direntName || reclen > len(buf) {
			break
		}
		rec := buf[:reclen]
		buf = buf[reclen:]
		if binary.NativeEndian.Uint64(rec[direntIno:]) == 0 {
			continue // a deleted entry, as os.ReadDir skips it
		}
		name := rec[direntName:]
		if i := bytes.IndexByte(name, 0); i >= 0 {
			name = name[:i]
		}
		if len(name) == 0 || (name[0] == '.' && (len(name) == 1 || (len(name) == 2 && name[1] == '.'))) {
			continue
		}
		if bytes.IndexByte(name, '/') >= 0 {
			continue // no file system may list one; a path built from it would leave the directory
		}
		typ, ok := direntMode(rec[direntType])
		if !ok {
			// DT_UNKNOWN: some file systems leave the type to a stat.
			typ = d.lstatType(string(name))
			if typ == ^fs.FileMode(0) {
				continue // gone since the listing, as os.ReadDir skips it
			}
		}
		spans = append(spans, nameSpan{off: len(names), n: len(name), typ: typ})
		names = append(names, name...)
	}
	return names, spans
}

// direntMode maps a d_type to fs.FileMode type bits; ok is false for
// DT_UNKNOWN.
func direntMode(t byte) (fs.FileMode, bool) {
	switch t {
	case syscall.DT_REG:
		return 0, true
	case syscall.DT_DIR:
		return fs.ModeDir, true
	case syscall.DT_LNK:
		return fs.ModeSymlink, true
	case syscall.DT_FIFO:
		return fs.ModeNamedPipe, true
	case syscall.DT_SOCK:
		return fs.ModeSocket, true
	case syscall.DT_CHR:
		return fs.ModeDevice | fs.ModeCharDevice, true
	case syscall.DT_BLK:
		return fs.ModeDevice, true
	case syscall.DT_UNKNOWN:
		return 0, false
	}
	return fs.ModeIrregular, true
}

// lstatType stats name in the directory without following a link and
// returns its type bits: ^0 when it no longer exists, fs.ModeIrregular
// when it cannot be stat'ed (visitors stat such an entry again before
// reading it).
func (d dirHandle) lstatType(name string) fs.FileMode {
	var st unix.Stat_t
	for {
		err := unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
		if err == unix.EINTR {
			continue
		}
		if err == unix.ENOENT {
			return ^fs.FileMode(0)
		}
		if err != nil {
			return fs.ModeIrregular
		}
		break
	}
	// A d_type is the file type bits of st_mode shifted down (DT_REG is
	// S_IFREG>>12, and so on), so one mapping serves both.
	typ, ok := direntMode(byte(st.Mode & unix.S_IFMT >> 12))
	if !ok {
		return fs.ModeIrregular // no type at all: not read as a regular file
	}
	return typ
}

// openat opens name in the directory with flags. The name is made a C
// string in scratch, which the caller keeps from call to call, rather
// than in a fresh allocation per file as unix.Openat does.
func (d dirHandle) openat(name string, flags int, scratch *[]byte) (int, error) {
	if strings.IndexByte(name, 0) >= 0 {
		return -1, syscall.EINVAL
	}
	b := append(append((*scratch)[:0], name...), 0)
	*scratch = b
	// O_LARGEFILE as unix.Openat adds it: 0 on 64-bit systems, needed on
	// 32-bit ones for files of 2 GiB and more.
	flags |= unix.O_LARGEFILE
	fd, _, errno := syscall.Syscall6(syscall.SYS_OPENAT, uintptr(d.fd), uintptr(unsafe.Pointer(&b[0])), uintptr(flags), 0, 0, 0)
	if errno != 0 {
		return -1, errno
	}
	return int(fd), nil
}
