package rootfs

import (
	"io/fs"
	"os"
	"path"
	"strings"

	experimentalsys "github.com/tetratelabs/wazero/experimental/sys"
)

// A writable FS may share its module with read-only mounts of folders
// inside it ("/proj" writable, "ro:/proj/locked" read-only). os.Root keeps
// every path inside /proj, but inside it a link "alias -> locked" — or a
// hard link to a file in locked — is just another name, so the writable
// FS would change what the read-only mount promises not to. WithReadOnly
// names those folders; every change then goes through the guard below,
// which judges where the change really lands, not the path's text:
//
//   - the folder a change happens in is opened (os.Root follows links
//     inside the root) and walked up by its descriptor's ".." to the root:
//     the kernel's own answer to where that folder is. A read-only folder
//     on the way refuses the change with EROFS.
//   - a change to a file by a path that may follow a final link (open for
//     writing, chmod, utimens) follows it by hand, so the folder the link
//     leads into is judged too, and checks that the file opened is the one
//     judged (a link swapped in between is retried or refused). A
//     truncation happens only after that check.
//   - a file with more than one name (nlink > 1) is never opened for
//     writing: its other name may be in a read-only folder, and no bounded
//     search finds every name of an inode. Reads are not affected.
//   - a read-only folder, or a folder holding one, is never renamed,
//     removed or replaced: moving it out would make it writable.
//
// Without read-only folders (the common case) nothing of this runs.

// WithReadOnly makes f refuse any change that would reach one of dirs:
// host folders that other mounts of the same module grant read-only. It
// returns f; call it before the FS is used.
func (f *FS) WithReadOnly(dirs ...string) *FS {
	f.protect = append(f.protect, dirs...)
	return f
}

// guarded reports whether changes need the guard.
func (f *FS) guarded() bool { return !f.readOnly && len(f.protect) > 0 }

// guardPath cleans n for a guarded change; a path climbing out is refused.
func guardPath(n string) (string, experimentalsys.Errno) {
	n = path.Clean(n)
	if n == ".." || strings.HasPrefix(n, "../") {
		return "", experimentalsys.EPERM
	}
	return n, 0
}

// guardParent opens the folder holding n and checks where it really is;
// it returns that folder as an os.Root and n's last name in it.
func (f *FS) guardParent(r *os.Root, n string) (*os.Root, string, experimentalsys.Errno) {
	n, errno := guardPath(n)
	if errno != 0 {
		return nil, "", errno
	}
	if n == "." {
		return nil, "", experimentalsys.EPERM // the mount itself is not changed by name
	}
	pr, err := r.OpenRoot(path.Dir(n))
	if err != nil {
		return nil, "", errnoOf(err)
	}
	if errno := f.checkDir(r, pr); errno != 0 {
		pr.Close()
		return nil, "", errno
	}
	return pr, path.Base(n), 0
}

// checkDir walks up from the folder d holds to the root r holds and
// refuses (EROFS) when a read-only folder is on the way.
func (f *FS) checkDir(r, d *os.Root) experimentalsys.Errno {
	df, err := d.Open(".")
	if err != nil {
		return errnoOf(err)
	}
	defer df.Close()
	return f.checkDirFile(r, df)
}

// checkName refuses a change that would remove, move or replace name in
// pr when it is a read-only folder or holds one.
func (f *FS) checkName(r, pr *os.Root, name string) experimentalsys.Errno {
	fi, err := pr.Lstat(name)
	if err != nil || !fi.IsDir() {
		return 0 // nothing there, or not a folder: the op itself decides
	}
	sub, err := pr.OpenRoot(name)
	if err != nil {
		return errnoOf(err)
	}
	defer sub.Close()
	if errno := f.checkDir(r, sub); errno != 0 {
		return errno
	}
	if f.holdsReadOnly(sub) {
		return experimentalsys.EROFS
	}
	return 0
}

// holdsReadOnly reports whether a read-only folder lies inside the folder
// d holds (or is it): walking up from each read-only folder meets d.
func (f *FS) holdsReadOnly(d *os.Root) bool {
	df, err := d.Open(".")
	if err != nil {
		return true // cannot tell: fail closed
	}
	defer df.Close()
	for _, p := range f.protect {
		pf, err := os.Open(p)
		if err != nil {
			continue // not there: nothing to protect
		}
		meets := walkUpMeets(pf, df)
		pf.Close()
		if meets {
			return true
		}
	}
	return false
}

// guardOpen opens n for a change (access, create and truncate bits of
// flag; change for chmod and utimens through the descriptor), following a final link by hand so every folder on the way is
// judged, and checking that the file opened is the one judged.
func (f *FS) guardOpen(r *os.Root, n string, flag int, perm fs.FileMode, change bool) (*os.File, experimentalsys.Errno) {
	write := change || flag&(os.O_WRONLY|os.O_RDWR) != 0
	if c, errno := guardPath(n); errno != 0 {
		return nil, errno
	} else if c == "." { // the mount's own folder (chmod, utimens)
		if flag&(os.O_WRONLY|os.O_RDWR|os.O_CREATE|os.O_TRUNC) != 0 {
			return nil, experimentalsys.EISDIR
		}
		osf, err := r.Open(".")
		if err != nil {
			return nil, errnoOf(err)
		}
		if errno := f.checkDirFile(r, osf); errno != 0 {
			osf.Close()
			return nil, errno
		}
		return osf, 0
	}
	for hops := 0; hops < 40; hops++ {
		pr, base, errno := f.guardParent(r, n)
		if errno != 0 {
			return nil, errno
		}
		fi, err := pr.Lstat(base)
		if err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			target, err := pr.Readlink(base)
			pr.Close()
			if err != nil {
				return nil, errnoOf(err)
			}
			if path.IsAbs(target) {
				return nil, experimentalsys.EPERM // os.Root never follows one
			}
			n = path.Join(path.Dir(n), target)
			continue
		}
		var osf *os.File
		switch {
		case err == nil:
			if flag&os.O_EXCL != 0 && flag&os.O_CREATE != 0 {
				pr.Close()
				return nil, experimentalsys.EEXIST
			}
			osf, err = pr.OpenFile(base, flag&^(os.O_CREATE|os.O_EXCL|os.O_TRUNC), perm)
		case flag&os.O_CREATE != 0:
			osf, err = pr.OpenFile(base, (flag&^os.O_TRUNC)|os.O_EXCL, perm)
			if err != nil && os.IsExist(err) && flag&os.O_EXCL == 0 {
				pr.Close()
				continue // made by someone else meanwhile: judge it
			}
		default:
			pr.Close()
			return nil, errnoOf(err)
		}
		if err != nil {
			pr.Close()
			return nil, errnoOf(err)
		}
		got, serr := osf.Stat()
		if serr != nil || fi != nil && !os.SameFile(fi, got) {
			osf.Close()
			pr.Close()
			continue // swapped since the Lstat: judge again
		}
		if got.IsDir() {
			errno = f.checkDirFile(r, osf)
		} else if write && links(got) > 1 {
			errno = experimentalsys.EPERM
		}
		pr.Close()
		if errno != 0 {
			osf.Close()
			return nil, errno
		}
		if flag&os.O_TRUNC != 0 && write {
			if err := osf.Truncate(0); err != nil {
				osf.Close()
				return nil, errnoOf(err)
			}
		}
		return osf, 0
	}
	return nil, experimentalsys.ELOOP
}

// checkDirFile is checkDir for a folder already open.
func (f *FS) checkDirFile(r *os.Root, df *os.File) experimentalsys.Errno {
	rf, err := r.Open(".")
	if err != nil {
		return errnoOf(err)
	}
	defer rf.Close()
	var prot []*os.File
	for _, p := range f.protect {
		if pf, err := os.Open(p); err == nil {
			prot = append(prot, pf)
		}
	}
	defer func() {
		for _, pf := range prot {
			pf.Close()
		}
	}()
	return walkUp(df, rf, prot)
}
