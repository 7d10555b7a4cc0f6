//go:build linux && !amd64

package sandbox

// forkSupported reports whether this platform starts confined commands
// by vforkSteps (forked_linux.go): elsewhere a helper process does
// (oneshot_linux.go, zygote_linux.go).
const forkSupported = false

func vforkSteps(stack uintptr, steps *step, n uintptr, errfd uintptr) (pid uintptr, errno uintptr) {
	panic("sandbox: vforkSteps is not implemented on this platform")
}
