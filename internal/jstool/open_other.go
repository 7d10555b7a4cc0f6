//go:build !unix

package jstool

import "syscall"

// openNonblock is 0 where opening a file cannot wait on a FIFO's other
// end; errNoReader never matches there.
const (
	openNonblock = 0
	errNoReader  = syscall.Errno(0)
)
