//go:build unix

package fspath

import (
	"io/fs"
	"syscall"
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

func deviceOf(info fs.FileInfo) (uint64, bool) {
	k, ok := IDOf(info)
	return k.Dev, ok
}
