//go:build !unix

package fspath

import "io/fs"

// FileID is what makes two names one file: its device and inode, not
// known here.
type FileID struct{ Dev, Ino uint64 }

// LinkCount is 1 where the system does not tell a file's link count (Go's
// FileInfo on Windows does not): hard links are not found there.
func LinkCount(fs.FileInfo) int { return 1 }

// IDOf is the identity of the file info describes; never known here.
func IDOf(fs.FileInfo) (FileID, bool) { return FileID{}, false }

// walkLinks finds nothing where link counts are not known.
func walkLinks(string, int, func(string, FileID)) bool { return false }
