//go:build linux || darwin

package trust

import (
	"fmt"
	"io/fs"
	"syscall"
)

// inodeStamp is fi's device, inode and change time.
func inodeStamp(fi fs.FileInfo) string {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return ""
	}
	sec, nsec := changeTime(st)
	return fmt.Sprintf("%d/%d/%d.%d", st.Dev, st.Ino, sec, nsec)
}
