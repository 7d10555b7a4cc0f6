//go:build !unix

package fspath

import "syscall"

// ONonblock is 0 where opening a file cannot wait on a FIFO's other end;
// errNoReader never matches there.
const (
	ONonblock   = 0
	errNoReader = syscall.Errno(0)
)
