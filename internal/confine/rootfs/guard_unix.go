//go:build unix

package rootfs

import (
	"io/fs"
	"os"
	"syscall"

	experimentalsys "github.com/tetratelabs/wazero/experimental/sys"
	"golang.org/x/sys/unix"
)

// maxDepth bounds a walk up the folder tree.
const maxDepth = 4096

// walkUp walks from the folder d up through ".." until it meets the root
// folder: EROFS when one of prot is on the way (d included), EPERM when
// the walk reaches the top of the file system without meeting the root.
func walkUp(d, root *os.File, prot []*os.File) experimentalsys.Errno {
	rootFI, err := root.Stat()
	if err != nil {
		return errnoOf(err)
	}
	protFI := make([]fs.FileInfo, 0, len(prot))
	for _, p := range prot {
		if fi, err := p.Stat(); err == nil {
			protFI = append(protFI, fi)
		}
	}
	cur, owned := d, false
	defer func() {
		if owned {
			cur.Close()
		}
	}()
	for range maxDepth {
		fi, err := cur.Stat()
		if err != nil {
			return errnoOf(err)
		}
		for _, p := range protFI {
			if os.SameFile(fi, p) {
				return experimentalsys.EROFS
			}
		}
		if os.SameFile(fi, rootFI) {
			return 0
		}
		next, errno := parent(cur)
		if errno != 0 {
			return errno
		}
		nfi, err := next.Stat()
		if err != nil || os.SameFile(nfi, fi) { // the top: the root was never met
			next.Close()
			return experimentalsys.EPERM
		}
		if owned {
			cur.Close()
		}
		cur, owned = next, true
	}
	return experimentalsys.EPERM
}

// walkUpMeets reports whether walking up from the folder p meets the
// folder d (p itself included).
func walkUpMeets(p, d *os.File) bool {
	dfi, err := d.Stat()
	if err != nil {
		return true // cannot tell: fail closed
	}
	cur, owned := p, false
	defer func() {
		if owned {
			cur.Close()
		}
	}()
	for range maxDepth {
		fi, err := cur.Stat()
		if err != nil {
			return true
		}
		if os.SameFile(fi, dfi) {
			return true
		}
		next, errno := parent(cur)
		if errno != 0 {
			return true
		}
		nfi, err := next.Stat()
		if err != nil || os.SameFile(nfi, fi) {
			next.Close()
			return false
		}
		if owned {
			cur.Close()
		}
		cur, owned = next, true
	}
	return true
}

// parent opens the folder above the open folder d: the kernel's ".." of
// the descriptor, wherever d has been moved to.
func parent(d *os.File) (*os.File, experimentalsys.Errno) {
	rc, err := d.SyscallConn()
	if err != nil {
		return nil, errnoOf(err)
	}
	var fd int
	var oerr error
	if err := rc.Control(func(dfd uintptr) {
		fd, oerr = unix.Openat(int(dfd), "..", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	}); err != nil {
		return nil, errnoOf(err)
	}
	if oerr != nil {
		return nil, errnoOf(oerr)
	}
	return os.NewFile(uintptr(fd), ".."), 0
}

// links is the number of names a file has.
func links(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 2 // cannot tell: as if linked, so a write is refused
}

// fdOf runs fn with the descriptor of the folder d holds.
func fdOf(d *os.Root, fn func(fd int) error) experimentalsys.Errno {
	f, err := d.Open(".")
	if err != nil {
		return errnoOf(err)
	}
	defer f.Close()
	rc, err := f.SyscallConn()
	if err != nil {
		return errnoOf(err)
	}
	var ferr error
	if err := rc.Control(func(fd uintptr) { ferr = fn(int(fd)) }); err != nil {
		return errnoOf(err)
	}
	return errnoOf(ferr)
}

// renameAt renames from in the folder fd holds to to in the folder td
// holds, each resolved from its held folder, not by path again.
func renameAt(fd *os.Root, from string, td *os.Root, to string) experimentalsys.Errno {
	return fdOf(fd, func(ffd int) error {
		return errnoErr(fdOf(td, func(tfd int) error { return unix.Renameat(ffd, from, tfd, to) }))
	})
}

// linkAt makes a hard link, as renameAt renames.
func linkAt(od *os.Root, old string, nd *os.Root, name string) experimentalsys.Errno {
	return fdOf(od, func(ofd int) error {
		return errnoErr(fdOf(nd, func(nfd int) error { return unix.Linkat(ofd, old, nfd, name, 0) }))
	})
}

// errnoErr turns an Errno back into an error for fdOf (0 is nil).
func errnoErr(e experimentalsys.Errno) error {
	if e == 0 {
		return nil
	}
	return e
}
