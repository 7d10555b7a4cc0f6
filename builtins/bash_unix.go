//go:build unix

package builtins

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// startInOwnGroup makes the command the leader of a new session, and so
// of a new process group: everything it starts (pipelines, background
// jobs, their children) can be signalled together and nothing outlives a
// timeout or a cancellation. A session of its own has no controlling
// terminal: in toolhost's, /dev/tty would open the terminal toolhost was
// started from, and TIOCSTI would fill its input with keystrokes that the
// user's shell runs once toolhost exits — outside the rules and the
// sandbox.
func startInOwnGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
}

// killGroup ends the process group led by pid: SIGTERM first so programs
// can clean up, then, once every member is gone or grace has passed,
// SIGKILL for whatever is left. It returns after SIGKILL has been sent, so
// a caller that returns next leaves no process of the group running
// (a killed process may linger as a zombie until its parent reaps it).
func killGroup(pid int, grace time.Duration) {
	if err := syscall.Kill(-pid, syscall.SIGTERM); errors.Is(err, syscall.ESRCH) {
		return
	}
	deadline := time.Now().Add(grace)
	for time.Now().Before(deadline) {
		// Zombies still count as members, so this often waits out the
		// grace period; that costs at most grace.
		if err := syscall.Kill(-pid, 0); errors.Is(err, syscall.ESRCH) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	_ = syscall.Kill(-pid, syscall.SIGKILL)
}

// exitSignal names the signal that ended the process, or "" when it exited.
func exitSignal(ps *os.ProcessState) string {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return ws.Signal().String()
	}
	return ""
}

// drainAvailable passes on whatever r holds right now, without waiting for
// more: the output a command wrote before the reader was stopped.
func drainAvailable(r *os.File, sink func([]byte)) {
	rc, err := r.SyscallConn()
	if err != nil {
		return
	}
	buf := make([]byte, 32*1024)
	_ = rc.Read(func(fd uintptr) bool {
		for {
			n, err := syscall.Read(int(fd), buf)
			if n <= 0 || err != nil {
				return true // EAGAIN: empty for now; that is all we take
			}
			sink(buf[:n])
		}
	})
}
