//go:build !unix

package builtins

import "os"

// grepFileHandle is an *os.File where bare system calls are not available.
type grepFileHandle = *os.File

func openForGrep(path string) (grepFileHandle, error) { return os.Open(path) }
