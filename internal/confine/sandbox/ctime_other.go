//go:build unix && !linux

package sandbox

import "syscall"

// statCtime is 0 where Stat_t names the field differently; the device,
// inode and modification time still tell a change.
func statCtime(*syscall.Stat_t) int64 { return 0 }
