//go:build !linux && !darwin

package trust

import "io/fs"

// inodeStamp is empty where the system gives no inode or change time: the
// size and modification time stand alone.
func inodeStamp(fs.FileInfo) string { return "" }
