//go:build unix

package fspath

import "syscall"

// ONonblock keeps opening a FIFO from waiting for its other end; regular
// files ignore it. errNoReader is what opening a FIFO for writing that way
// fails with when nothing reads it.
const (
	ONonblock   = syscall.O_NONBLOCK
	errNoReader = syscall.ENXIO
)
