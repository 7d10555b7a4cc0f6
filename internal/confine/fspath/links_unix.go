//go:build unix

package fspath

import (
	"io/fs"
	"os"
	"slices"
	"syscall"

	"golang.org/x/sys/unix"
)

// FileID is what makes two names one file: its device and inode.
type FileID struct{ Dev, Ino uint64 }

// LinkCount is how many names (hard links) the file info describes has.
func LinkCount(info fs.FileInfo) int {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return int(st.Nlink)
	}
	return 1
}

// IDOf is the identity of the file info describes; false where the system
// does not tell it.
func IDOf(info fs.FileInfo) (FileID, bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return FileID{}, false
	}
	return FileID{Dev: uint64(st.Dev), Ino: uint64(st.Ino)}, true //nolint:unconvert // Dev is 32 bits on some systems
}

// walkLinks calls found with the path below root (slash-separated) and the
// identity of every regular file of more than one link in the tree, looking
// at no more than limit entries; cut says it stopped there. A directory is
// opened relative to its parent's descriptor with O_NOFOLLOW, so a
// directory swapped for a symbolic link meanwhile is not entered, and one
// on another device is not entered either. An unreadable directory is
// passed over: the names in it stay unfound, which refuses their file.
func walkLinks(root string, limit int, found func(rel string, id FileID)) (cut bool) {
	fd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return false
	}
	w := linkWalk{dev: uint64(st.Dev), max: limit, found: found} //nolint:unconvert // Dev is 32 bits on some systems
	w.dir(fd, "")
	return w.cut
}

type linkWalk struct {
	dev       uint64
	max, seen int
	cut       bool
	found     func(string, FileID)
}

// dir walks the directory open as fd, which it closes, at rel below the
// root. Names are taken in sorted order, so where a cut falls does not
// depend on the file system's order.
func (w *linkWalk) dir(fd int, rel string) {
	f := os.NewFile(uintptr(fd), rel)
	defer f.Close()
	names, _ := f.Readdirnames(-1)
	slices.Sort(names)
	for _, name := range names {
		if w.seen++; w.seen > w.max {
			w.cut = true
			return
		}
		var st unix.Stat_t
		if err := unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			continue
		}
		p := name
		if rel != "" {
			p = rel + "/" + name
		}
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFDIR:
			if uint64(st.Dev) != w.dev { //nolint:unconvert // as above
				continue
			}
			sub, err := unix.Openat(fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
			if err != nil {
				continue
			}
			w.dir(sub, p)
			if w.cut {
				return
			}
		case unix.S_IFREG:
			if st.Nlink > 1 {
				w.found(p, FileID{Dev: uint64(st.Dev), Ino: uint64(st.Ino)}) //nolint:unconvert // as above
			}
		}
	}
}
