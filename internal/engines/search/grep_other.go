//go:build !unix

package search

import "os"

// grepFileHandle is an *os.File where bare system calls are not available.
type grepFileHandle = *os.File

func openForGrep(_ *Entry, path string, _ *[]byte) (grepFileHandle, error) {
	return os.Open(path)
}

// grepIsRegular reports whether the open file is a regular file.
func grepIsRegular(f grepFileHandle) bool {
	info, err := f.Stat()
	return err == nil && info.Mode().IsRegular()
}

// openWalkDir opens a directory for reading its entries; files in it are
// opened by path here.
func openWalkDir(path string) (dirHandle, error) {
	f, err := os.Open(path)
	return dirHandle{f: f}, err
}

// openSubdir opens a subdirectory by its path here.
func openSubdir(_ dirHandle, _, path string) (dirHandle, error) { return openWalkDir(path) }

// ignoreOpenFlags open an ignore file; links are not told apart here.
const ignoreOpenFlags = os.O_RDONLY
