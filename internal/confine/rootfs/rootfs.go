package rootfs

import (
	"errors"
	"io/fs"
	"os"
	"sync"
	"syscall"
	"time"

	experimentalsys "github.com/tetratelabs/wazero/experimental/sys"
	"github.com/tetratelabs/wazero/sys"
)

// FS is a wazero experimental/sys.FS confined to one host directory. Mount
// it with wazero's sysfs.FSConfig:
//
//	fsys := rootfs.New("/srv/data")
//	defer fsys.Close()
//	cfg := wazero.NewFSConfig().(sysfs.FSConfig).WithSysFSMount(fsys, "/data")
//
// The directory is opened on first use, not by New, so a grant of a
// directory that does not exist yet works once it does (until then every
// operation fails with ENOENT). Once opened, the FS keeps the directory it
// opened even if the path is later renamed or replaced. An FS is safe for
// concurrent use; Close it when no module uses it any more.
type FS struct {
	experimentalsys.UnimplementedFS

	dir      string
	readOnly bool
	protect  []string // read-only folders a change must not reach (guard.go)

	mu     sync.Mutex
	root   *os.Root
	closed bool
}

// New returns a writable FS confined to dir.
func New(dir string) *FS { return &FS{dir: dir} }

// NewReadOnly returns an FS confined to dir that refuses every change with
// EROFS and opens every file read-only.
func NewReadOnly(dir string) *FS { return &FS{dir: dir, readOnly: true} }

// String returns the host directory, for wazero's and our diagnostics.
func (f *FS) String() string {
	if f.readOnly {
		return "ro:" + f.dir
	}
	return f.dir
}

// ReadOnly reports whether the FS was made by NewReadOnly.
func (f *FS) ReadOnly() bool { return f.readOnly }

// Close releases the directory. Operations after Close fail with EBADF;
// files already open stay usable until closed.
func (f *FS) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
	if f.root == nil {
		return nil
	}
	err := f.root.Close()
	f.root = nil
	return err
}

// Refresh makes the FS follow its directory's path again if that path now
// names another directory (the old one was removed or renamed and a new
// one made, as build tools do) or none. Package plugins calls it as each
// call starts, so a call sees the directory the grant names at that time.
// Files already open are not affected; the old directory is released when
// nothing uses it any more.
func (f *FS) Refresh() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.root == nil {
		return
	}
	cur, err1 := os.Stat(f.dir)
	held, err2 := f.root.Stat(".")
	if err1 != nil || err2 != nil || !os.SameFile(cur, held) {
		// Not Close: an operation may have taken the old root just now;
		// its finalizer closes it once unreachable.
		f.root = nil
	}
}

// getRoot opens the directory the first time it is needed.
func (f *FS) getRoot() (*os.Root, experimentalsys.Errno) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return nil, experimentalsys.EBADF
	}
	if f.root == nil {
		r, err := os.OpenRoot(f.dir)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, experimentalsys.ENOENT
			}
			return nil, errnoOf(err)
		}
		f.root = r
	}
	return f.root, 0
}

// name turns wazero's path (relative to the mount, "" or "." for the mount
// itself) into an os.Root name. Leading slashes are dropped: the mount is
// the guest's root, and os.Root refuses absolute names outright.
func name(p string) string {
	for len(p) > 0 && p[0] == '/' {
		p = p[1:]
	}
	if p == "" {
		return "."
	}
	return p
}

// errnoOf maps an error of os.Root to an Errno. An error that is not a
// system error — os.Root's "path escapes from parent", for one — becomes
// EPERM: anything this package cannot name is refused, never passed on as
// success or as a retryable EIO.
func errnoOf(err error) experimentalsys.Errno {
	if err == nil {
		return 0
	}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		if errno == syscall.EXDEV { // openat2 RESOLVE_BENEATH's "would escape"
			return experimentalsys.EPERM
		}
		return experimentalsys.UnwrapOSError(errno)
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return experimentalsys.ENOENT
	case errors.Is(err, fs.ErrExist):
		return experimentalsys.EEXIST
	case errors.Is(err, fs.ErrClosed):
		return experimentalsys.EBADF
	case errors.Is(err, fs.ErrInvalid):
		return experimentalsys.EINVAL
	}
	return experimentalsys.EPERM
}

// OpenFile implements experimentalsys.FS. On a read-only FS, opening for
// writing, creating or truncating fails with EROFS (EISDIR for a
// directory opened for writing, as wazero's ReadFS does).
func (f *FS) OpenFile(p string, flag experimentalsys.Oflag, perm fs.FileMode) (experimentalsys.File, experimentalsys.Errno) {
	access := flag & (experimentalsys.O_RDONLY | experimentalsys.O_WRONLY | experimentalsys.O_RDWR)
	if flag&experimentalsys.O_DIRECTORY != 0 && access != experimentalsys.O_RDONLY {
		return nil, experimentalsys.EISDIR
	}
	if f.readOnly && (access != experimentalsys.O_RDONLY || flag&(experimentalsys.O_CREAT|experimentalsys.O_TRUNC) != 0) {
		return nil, experimentalsys.EROFS
	}
	r, errno := f.getRoot()
	if errno != 0 {
		return nil, errno
	}
	n := name(p)
	if flag&experimentalsys.O_NOFOLLOW != 0 {
		// os.Root follows a final link (inside the root) even with
		// O_NOFOLLOW; check first. A link swapped in after this check is
		// still only followed inside the root.
		if fi, err := r.Lstat(n); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return nil, experimentalsys.ELOOP
		}
	}
	var osf *os.File
	if f.guarded() && (access != experimentalsys.O_RDONLY || flag&(experimentalsys.O_CREAT|experimentalsys.O_TRUNC) != 0) {
		osf, errno = f.guardOpen(r, n, osFlag(flag), perm, flag&experimentalsys.O_TRUNC != 0)
		if errno != 0 {
			return nil, errno
		}
	} else {
		var err error
		if osf, err = r.OpenFile(n, osFlag(flag), perm); err != nil {
			return nil, errnoOf(err)
		}
	}
	file := &File{fs: f, path: n, flag: flag, perm: perm, f: osf}
	file.seeker.f = file
	if flag&experimentalsys.O_DIRECTORY != 0 {
		if isDir, errno := file.IsDir(); errno != 0 || !isDir {
			osf.Close()
			if errno == 0 {
				errno = experimentalsys.ENOTDIR
			}
			return nil, errno
		}
	}
	return file, 0
}

// osFlag converts a wazero open flag to os.OpenFile's. O_DIRECTORY and
// O_NOFOLLOW are handled by OpenFile itself; O_NONBLOCK means nothing for
// the regular files and directories a mount holds.
func osFlag(flag experimentalsys.Oflag) int {
	var o int
	switch flag & (experimentalsys.O_RDONLY | experimentalsys.O_WRONLY | experimentalsys.O_RDWR) {
	case experimentalsys.O_RDWR:
		o = os.O_RDWR
	case experimentalsys.O_WRONLY:
		o = os.O_WRONLY
	default:
		o = os.O_RDONLY
	}
	if flag&experimentalsys.O_APPEND != 0 {
		o |= os.O_APPEND
	}
	if flag&experimentalsys.O_CREAT != 0 {
		o |= os.O_CREATE
	}
	if flag&experimentalsys.O_EXCL != 0 {
		o |= os.O_EXCL
	}
	if flag&experimentalsys.O_TRUNC != 0 {
		o |= os.O_TRUNC
	}
	if flag&(experimentalsys.O_SYNC|experimentalsys.O_DSYNC|experimentalsys.O_RSYNC) != 0 {
		o |= os.O_SYNC
	}
	return o
}

// Lstat implements experimentalsys.FS.
func (f *FS) Lstat(p string) (sys.Stat_t, experimentalsys.Errno) {
	r, errno := f.getRoot()
	if errno != 0 {
		return sys.Stat_t{}, errno
	}
	fi, err := r.Lstat(name(p))
	if err != nil {
		return sys.Stat_t{}, errnoOf(err)
	}
	return sys.NewStat_t(fi), 0
}

// Stat implements experimentalsys.FS. A link is followed only inside the
// root; a link leading out fails with EPERM.
func (f *FS) Stat(p string) (sys.Stat_t, experimentalsys.Errno) {
	r, errno := f.getRoot()
	if errno != 0 {
		return sys.Stat_t{}, errno
	}
	fi, err := r.Stat(name(p))
	if err != nil {
		return sys.Stat_t{}, errnoOf(err)
	}
	return sys.NewStat_t(fi), 0
}

// Readlink implements experimentalsys.FS: it returns a link's text, which
// is data inside the mount even when it names a place outside.
func (f *FS) Readlink(p string) (string, experimentalsys.Errno) {
	r, errno := f.getRoot()
	if errno != 0 {
		return "", errno
	}
	dst, err := r.Readlink(name(p))
	if err != nil {
		return "", errnoOf(err)
	}
	return dst, 0
}

// writableRoot is getRoot for an operation that changes the file system.
func (f *FS) writableRoot() (*os.Root, experimentalsys.Errno) {
	if f.readOnly {
		return nil, experimentalsys.EROFS
	}
	return f.getRoot()
}

// Mkdir implements experimentalsys.FS.
func (f *FS) Mkdir(p string, perm fs.FileMode) experimentalsys.Errno {
	r, errno := f.writableRoot()
	if errno != 0 {
		return errno
	}
	if f.guarded() {
		pr, base, errno := f.guardParent(r, name(p))
		if errno != 0 {
			return errno
		}
		defer pr.Close()
		r, p = pr, base
	}
	errno = errnoOf(r.Mkdir(name(p), perm))
	if errno == experimentalsys.ENOTDIR { // as wazero's DirFS: a missing parent
		errno = experimentalsys.ENOENT
	}
	return errno
}

// Chmod implements experimentalsys.FS.
func (f *FS) Chmod(p string, perm fs.FileMode) experimentalsys.Errno {
	r, errno := f.writableRoot()
	if errno != 0 {
		return errno
	}
	if f.guarded() {
		osf, errno := f.guardOpen(r, name(p), os.O_RDONLY, 0, true)
		if errno != 0 {
			return errno
		}
		defer osf.Close()
		return errnoOf(osf.Chmod(perm))
	}
	return errnoOf(r.Chmod(name(p), perm))
}

// Rename implements experimentalsys.FS. Both names resolve inside the root.
func (f *FS) Rename(from, to string) experimentalsys.Errno {
	r, errno := f.writableRoot()
	if errno != 0 {
		return errno
	}
	if name(from) == name(to) {
		return 0
	}
	if f.guarded() {
		fr, fb, errno := f.guardParent(r, name(from))
		if errno != 0 {
			return errno
		}
		defer fr.Close()
		tr, tb, errno := f.guardParent(r, name(to))
		if errno != 0 {
			return errno
		}
		defer tr.Close()
		if errno := f.checkName(r, fr, fb); errno != 0 {
			return errno
		}
		if errno := f.checkName(r, tr, tb); errno != 0 {
			return errno
		}
		return renameAt(fr, fb, tr, tb)
	}
	return errnoOf(r.Rename(name(from), name(to)))
}

// Rmdir implements experimentalsys.FS.
func (f *FS) Rmdir(p string) experimentalsys.Errno {
	r, errno := f.writableRoot()
	if errno != 0 {
		return errno
	}
	n := name(p)
	if f.guarded() {
		pr, base, errno := f.guardParent(r, n)
		if errno != 0 {
			return errno
		}
		defer pr.Close()
		if errno := f.checkName(r, pr, base); errno != 0 {
			return errno
		}
		r, n = pr, base
	}
	fi, err := r.Lstat(n)
	if err != nil {
		return errnoOf(err)
	}
	if !fi.IsDir() {
		return experimentalsys.ENOTDIR
	}
	return errnoOf(r.Remove(n))
}

// Unlink implements experimentalsys.FS. A link is removed, never what it
// points to.
func (f *FS) Unlink(p string) experimentalsys.Errno {
	r, errno := f.writableRoot()
	if errno != 0 {
		return errno
	}
	n := name(p)
	if f.guarded() {
		pr, base, errno := f.guardParent(r, n)
		if errno != 0 {
			return errno
		}
		defer pr.Close()
		r, n = pr, base
	}
	fi, err := r.Lstat(n)
	if err != nil {
		return errnoOf(err)
	}
	if fi.IsDir() {
		return experimentalsys.EISDIR
	}
	return errnoOf(r.Remove(n))
}

// Utimens implements experimentalsys.FS, following a final link inside the
// root. UTIME_OMIT keeps a time as it is.
func (f *FS) Utimens(p string, atim, mtim int64) experimentalsys.Errno {
	r, errno := f.writableRoot()
	if errno != 0 {
		return errno
	}
	if atim == experimentalsys.UTIME_OMIT && mtim == experimentalsys.UTIME_OMIT {
		return 0
	}
	n := name(p)
	if f.guarded() {
		osf, errno := f.guardOpen(r, n, os.O_RDONLY, 0, true)
		if errno != 0 {
			return errno
		}
		defer osf.Close()
		return futimens(osf, atim, mtim)
	}
	if atim == experimentalsys.UTIME_OMIT || mtim == experimentalsys.UTIME_OMIT {
		fi, err := r.Stat(n)
		if err != nil {
			return errnoOf(err)
		}
		st := sys.NewStat_t(fi)
		if atim == experimentalsys.UTIME_OMIT {
			atim = st.Atim
		}
		if mtim == experimentalsys.UTIME_OMIT {
			mtim = st.Mtim
		}
	}
	return errnoOf(r.Chtimes(n, time.Unix(0, atim), time.Unix(0, mtim)))
}

var _ experimentalsys.FS = (*FS)(nil)
