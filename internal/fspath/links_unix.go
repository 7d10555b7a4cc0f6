//go:build unix

package fspath

import (
	"io/fs"
	"syscall"
)

// fileKey is what makes two names one file: its device and inode.
type fileKey struct{ dev, ino uint64 }

// LinkCount is how many names (hard links) the file info describes has.
func LinkCount(info fs.FileInfo) int {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return int(st.Nlink)
	}
	return 1
}

func keyOf(info fs.FileInfo) (fileKey, bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return fileKey{}, false
	}
	return fileKey{dev: uint64(st.Dev), ino: uint64(st.Ino)}, true //nolint:unconvert // Dev is 32 bits on some systems
}

func deviceOf(info fs.FileInfo) (uint64, bool) {
	k, ok := keyOf(info)
	return k.dev, ok
}
