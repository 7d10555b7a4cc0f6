package wasm

import (
	"syscall"
	"time"
	"unsafe"
)

// threadCPU is the CPU time of the calling thread: on a shared machine
// it leaves out the time other processes held the processor, which wall
// time would charge to whichever call was running.
func threadCPU() time.Duration {
	var ts syscall.Timespec
	const clockThreadCPUTime = 3
	if _, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0); errno != 0 {
		return time.Duration(time.Now().UnixNano())
	}
	return time.Duration(ts.Nano())
}
