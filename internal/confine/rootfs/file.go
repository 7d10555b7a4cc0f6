package rootfs

import (
	"io"
	"io/fs"
	"os"

	experimentalsys "github.com/tetratelabs/wazero/experimental/sys"
	"github.com/tetratelabs/wazero/sys"
)

// File is an experimentalsys.File over an *os.File that FS opened inside
// its root. Everything it does goes through the open descriptor — reads,
// writes, listing (getdents and fstatat on the directory's own
// descriptor), times — except SetAppend, which reopens the file by name
// through the same os.Root and checks it is still the same file. wazero's
// own file type cannot be used: it reopens directories and files by host
// path, outside any root.
type File struct {
	seeker[int64]

	fs   *FS
	path string // name inside the root, for SetAppend's reopen
	flag experimentalsys.Oflag
	perm fs.FileMode
	f    *os.File

	closed bool
	// st caches what cannot change while the file is open.
	st *sys.Stat_t
}

func (f *File) cached() (*sys.Stat_t, experimentalsys.Errno) {
	if f.st == nil {
		if _, errno := f.Stat(); errno != 0 {
			return nil, errno
		}
	}
	return f.st, 0
}

// Dev implements experimentalsys.File.
func (f *File) Dev() (uint64, experimentalsys.Errno) {
	st, errno := f.cached()
	if errno != 0 {
		return 0, errno
	}
	return st.Dev, 0
}

// Ino implements experimentalsys.File.
func (f *File) Ino() (sys.Inode, experimentalsys.Errno) {
	st, errno := f.cached()
	if errno != 0 {
		return 0, errno
	}
	return st.Ino, 0
}

// IsDir implements experimentalsys.File.
func (f *File) IsDir() (bool, experimentalsys.Errno) {
	st, errno := f.cached()
	if errno != 0 {
		return false, errno
	}
	return st.Mode.IsDir(), 0
}

// IsAppend implements experimentalsys.File.
func (f *File) IsAppend() bool { return f.flag&experimentalsys.O_APPEND != 0 }

// SetAppend implements experimentalsys.File. An os.File cannot change its
// append mode, so the file is reopened by name through the root, and kept
// only if it is still the same file.
func (f *File) SetAppend(enable bool) experimentalsys.Errno {
	if f.closed {
		return experimentalsys.EBADF
	}
	if enable == f.IsAppend() {
		return 0
	}
	flag := f.flag &^ (experimentalsys.O_CREAT | experimentalsys.O_TRUNC | experimentalsys.O_EXCL)
	if enable {
		flag |= experimentalsys.O_APPEND
	} else {
		flag &^= experimentalsys.O_APPEND
	}
	isDir, errno := f.IsDir()
	if errno != 0 {
		return errno
	}
	if isDir {
		return experimentalsys.EISDIR
	}
	offset, err := f.f.Seek(0, io.SeekCurrent)
	if err != nil {
		return errnoOf(err)
	}
	nf, errno := f.fs.OpenFile(f.path, flag, f.perm)
	if errno != 0 {
		return errno
	}
	n := nf.(*File)
	old, err1 := f.f.Stat()
	cur, err2 := n.f.Stat()
	if err1 != nil || err2 != nil || !os.SameFile(old, cur) {
		n.f.Close()
		return experimentalsys.ENOENT // replaced since it was opened
	}
	if _, err := n.f.Seek(offset, io.SeekStart); err != nil {
		n.f.Close()
		return errnoOf(err)
	}
	f.f.Close()
	f.f, f.flag = n.f, flag
	return 0
}

// Stat implements experimentalsys.File.
func (f *File) Stat() (sys.Stat_t, experimentalsys.Errno) {
	if f.closed {
		return sys.Stat_t{}, experimentalsys.EBADF
	}
	fi, err := f.f.Stat()
	if err != nil {
		return sys.Stat_t{}, errnoOf(err)
	}
	st := sys.NewStat_t(fi)
	if f.st == nil {
		c := st
		f.st = &c
	}
	return st, 0
}

// check returns EBADF for a closed file and EISDIR for a directory, for
// operations that need an open regular file.
func (f *File) check() experimentalsys.Errno {
	if f.closed {
		return experimentalsys.EBADF
	}
	if isDir, errno := f.IsDir(); errno != 0 {
		return errno
	} else if isDir {
		return experimentalsys.EISDIR
	}
	return 0
}

// writable returns the error of a write on a file that may not be written:
// EBADF for a file of a read-only FS or opened read-only (the kernel would
// say the same; this says it first), after check's errors.
func (f *File) writable() experimentalsys.Errno {
	if errno := f.check(); errno != 0 {
		return errno
	}
	if f.fs.readOnly || f.flag&(experimentalsys.O_WRONLY|experimentalsys.O_RDWR) == 0 {
		return experimentalsys.EBADF
	}
	return 0
}

// Read implements experimentalsys.File.
func (f *File) Read(buf []byte) (int, experimentalsys.Errno) {
	if len(buf) == 0 {
		return 0, 0
	}
	if errno := f.check(); errno != 0 {
		return 0, errno
	}
	n, err := f.f.Read(buf)
	return n, errnoOf(eof(err))
}

// Pread implements experimentalsys.File.
func (f *File) Pread(buf []byte, off int64) (int, experimentalsys.Errno) {
	if len(buf) == 0 {
		return 0, 0
	}
	if errno := f.check(); errno != 0 {
		return 0, errno
	}
	if off < 0 {
		return 0, experimentalsys.EINVAL
	}
	n, err := f.f.ReadAt(buf, off)
	return n, errnoOf(eof(err))
}

// eof drops io.EOF, which is not an error to wazero.
func eof(err error) error {
	if err == io.EOF {
		return nil
	}
	return err
}

// seeker gives File its Seek method. experimentalsys.File's Seek returns an
// Errno, not an error, which go vet's stdmethods check reports as a
// misspelt io.Seeker wherever a method named Seek takes an int64; declared
// on a type whose offset is a type parameter, the method is the one wazero
// wants once instantiated with int64, and vet has nothing to report.
type seeker[O ~int64] struct{ f *File }

// Seek implements experimentalsys.File; see File.seek.
func (s seeker[O]) Seek(offset O, whence int) (int64, experimentalsys.Errno) {
	return s.f.seek(int64(offset), whence)
}

// seek is File's Seek. On a directory only a rewind (offset 0 from the
// start) is allowed; it makes the next Readdir start over and see entries
// added since.
func (f *File) seek(offset int64, whence int) (int64, experimentalsys.Errno) {
	if f.closed {
		return 0, experimentalsys.EBADF
	}
	if uint(whence) > io.SeekEnd {
		return 0, experimentalsys.EINVAL
	}
	isDir, errno := f.IsDir()
	if errno != 0 {
		return 0, errno
	}
	if isDir && (offset != 0 || whence != io.SeekStart) {
		return 0, experimentalsys.EISDIR
	}
	n, err := f.f.Seek(offset, whence) // on a directory, also drops Go's buffered entries
	return n, errnoOf(err)
}

// Readdir implements experimentalsys.File. Entries are read from the open
// directory; a link is reported as a link (its type is the link's own),
// never followed.
func (f *File) Readdir(n int) ([]experimentalsys.Dirent, experimentalsys.Errno) {
	if f.closed {
		return nil, experimentalsys.EBADF
	}
	if isDir, errno := f.IsDir(); errno != 0 {
		return nil, errno
	} else if !isDir {
		return nil, experimentalsys.EBADF
	}
	fis, err := f.f.Readdir(n)
	if errno := errnoOf(eof(err)); errno != 0 {
		return nil, errno
	}
	out := make([]experimentalsys.Dirent, 0, len(fis))
	for _, fi := range fis {
		out = append(out, experimentalsys.Dirent{Name: fi.Name(), Ino: sys.NewStat_t(fi).Ino, Type: fi.Mode().Type()})
	}
	return out, 0
}

// Write implements experimentalsys.File.
func (f *File) Write(buf []byte) (int, experimentalsys.Errno) {
	if len(buf) == 0 {
		return 0, 0
	}
	if errno := f.writable(); errno != 0 {
		return 0, errno
	}
	n, err := f.f.Write(buf)
	return n, errnoOf(err)
}

// Pwrite implements experimentalsys.File.
func (f *File) Pwrite(buf []byte, off int64) (int, experimentalsys.Errno) {
	if len(buf) == 0 {
		return 0, 0
	}
	if errno := f.writable(); errno != 0 {
		return 0, errno
	}
	if off < 0 {
		return 0, experimentalsys.EINVAL
	}
	if f.IsAppend() { // os.File refuses WriteAt in append mode
		return 0, experimentalsys.EINVAL
	}
	n, err := f.f.WriteAt(buf, off)
	return n, errnoOf(err)
}

// Truncate implements experimentalsys.File.
func (f *File) Truncate(size int64) experimentalsys.Errno {
	if size < 0 {
		return experimentalsys.EINVAL
	}
	if errno := f.writable(); errno != 0 {
		return errno
	}
	return errnoOf(f.f.Truncate(size))
}

// Sync implements experimentalsys.File. A file of a read-only FS has
// nothing to sync (EBADF, as wazero's ReadFS).
func (f *File) Sync() experimentalsys.Errno {
	if f.closed || f.fs.readOnly {
		return experimentalsys.EBADF
	}
	return errnoOf(f.f.Sync())
}

// Datasync implements experimentalsys.File, as Sync.
func (f *File) Datasync() experimentalsys.Errno { return f.Sync() }

// Utimens implements experimentalsys.File, on the open descriptor.
func (f *File) Utimens(atim, mtim int64) experimentalsys.Errno {
	if f.closed || f.fs.readOnly {
		return experimentalsys.EBADF
	}
	return futimens(f.f, atim, mtim)
}

// Close implements experimentalsys.File.
func (f *File) Close() experimentalsys.Errno {
	if f.closed {
		return 0
	}
	f.closed = true
	return errnoOf(f.f.Close())
}

var _ experimentalsys.File = (*File)(nil)
