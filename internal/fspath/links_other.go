//go:build !unix

package fspath

import "io/fs"

// fileKey is what makes two names one file; not known here.
type fileKey struct{}

// LinkCount is 1 where the system does not tell a file's link count (Go's
// FileInfo on Windows does not): hard links are not found there.
func LinkCount(fs.FileInfo) int { return 1 }

func keyOf(fs.FileInfo) (fileKey, bool) { return fileKey{}, false }

func deviceOf(fs.FileInfo) (uint64, bool) { return 0, false }
