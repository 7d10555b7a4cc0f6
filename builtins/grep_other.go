//go:build !unix

package builtins

import "os"

// grepFileHandle is an *os.File where bare system calls are not available.
type grepFileHandle = *os.File

func openForGrep(_ *walkEntry, path string, _ *[]byte) (grepFileHandle, error) {
	return os.Open(path)
}

// openWalkDir opens a directory for reading its entries; files in it are
// opened by path here.
func openWalkDir(path string) (dirHandle, error) {
	f, err := os.Open(path)
	return dirHandle{f: f}, err
}
