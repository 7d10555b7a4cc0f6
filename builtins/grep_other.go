//go:build !unix

package builtins

import "os"

// grepFileHandle is an *os.File where bare system calls are not available.
type grepFileHandle = *os.File

func openForGrep(_ walkEntry, path string) (grepFileHandle, error) { return os.Open(path) }

// dirHandle is empty here: files are opened by path.
type dirHandle struct{}

func openWalkDir(path string) (*os.File, dirHandle, error) {
	f, err := os.Open(path)
	return f, dirHandle{}, err
}
