//go:build unix

package sandbox

import (
	"io/fs"
	"syscall"
)

// sysStamp identifies a file's state by device, inode and times.
func sysStamp(fi fs.FileInfo) (stamp, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return stamp{}, false
	}
	return stamp{dev: uint64(st.Dev), ino: st.Ino, ctime: statCtime(st), mtime: fi.ModTime().UnixNano()}, true //nolint:unconvert // Dev's type differs by system
}
