//go:build unix

package lsp

import (
	"os/exec"
	"syscall"
)

// startInOwnGroup makes the server the leader of a new process group, so
// that what it starts (workers, the builds it runs) ends with it.
func startInOwnGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup kills the process group the server leads: the server and
// every process it started that is still in the group.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
