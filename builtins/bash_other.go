//go:build !unix

package builtins

import (
	"os"
	"os/exec"
	"time"
)

// startInOwnGroup is a no-op where process groups do not exist.
func startInOwnGroup(*exec.Cmd) {}

// killGroup kills only the shell itself where process groups do not exist.
func killGroup(pid int, _ time.Duration) {
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
}

// exitSignal is always "" where exit statuses carry no signal.
func exitSignal(*os.ProcessState) string { return "" }

// drainAvailable does nothing where pipes cannot be read without blocking.
func drainAvailable(*os.File, func([]byte)) {}
