//go:build linux && amd64

package sandbox

// forkSupported reports whether this platform starts confined commands
// by vforkSteps (forked_linux.go).
const forkSupported = true

// vforkSteps is in vfork_linux_amd64.s.
//
//go:noescape
func vforkSteps(stack uintptr, steps *step, n uintptr, errfd uintptr) (pid uintptr, errno uintptr)
