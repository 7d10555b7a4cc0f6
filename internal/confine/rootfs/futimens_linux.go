package rootfs

import (
	"os"
	"syscall"
	"unsafe"

	experimentalsys "github.com/tetratelabs/wazero/experimental/sys"
)

// utimeOmit is Linux's UTIME_OMIT: leave this time as it is.
const utimeOmit = (1 << 30) - 2

// futimens sets a file's times through its descriptor (utimensat with a
// NULL path), so no name is resolved again.
func futimens(f *os.File, atim, mtim int64) experimentalsys.Errno {
	if atim == experimentalsys.UTIME_OMIT && mtim == experimentalsys.UTIME_OMIT {
		return 0
	}
	ts := [2]syscall.Timespec{{Nsec: utimeOmit}, {Nsec: utimeOmit}}
	if atim != experimentalsys.UTIME_OMIT {
		ts[0] = syscall.NsecToTimespec(atim)
	}
	if mtim != experimentalsys.UTIME_OMIT {
		ts[1] = syscall.NsecToTimespec(mtim)
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return errnoOf(err)
	}
	var e1 syscall.Errno
	if err := rc.Control(func(fd uintptr) {
		_, _, e1 = syscall.Syscall6(syscall.SYS_UTIMENSAT, fd, 0, uintptr(unsafe.Pointer(&ts)), 0, 0, 0)
	}); err != nil {
		return errnoOf(err)
	}
	if e1 != 0 {
		return errnoOf(e1)
	}
	return 0
}
