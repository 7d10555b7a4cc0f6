//go:build !unix

package builtins

import "os"

// oNoFollow is not available here: opens follow links.
const oNoFollow = 0

// grepFileHandle is an *os.File where bare system calls are not available.
type grepFileHandle = *os.File

func openForGrep(path string) (grepFileHandle, error) { return os.Open(path) }
