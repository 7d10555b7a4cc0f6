//go:build !unix

package lsp

import "os/exec"

// startInOwnGroup is a no-op where process groups do not exist.
func startInOwnGroup(*exec.Cmd) {}

// killGroup kills only the server where process groups do not exist.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
