//go:build linux

package sandbox

import (
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// A forked command is this process's child, so PTRACE_TRACEME makes this
// process its tracer (Landlock allows it: the tracer is outside the
// command's domain, not inside). A tracee's stops are reported by wait4
// without WUNTRACED: Wait returned at the command's first stop (its next
// execve), as if it had ended (exit -1, no signal), and left it stopped,
// traced by toolhost and never reaped; the bash tool reported the call
// over without killing anything, and the command ran on once toolhost
// exited (its tracer gone). Wait must return only once the command is
// gone.
func TestAForkedCommandThatTracesItselfIsWaitedForUntilItIsGone(t *testing.T) {
	requireFork(t)
	perl, err := exec.LookPath("perl")
	if err != nil {
		t.Skip(err)
	}
	p := Policy{Writable: append([]string{t.TempDir()}, Devices...), Network: true}
	// PTRACE_TRACEME is system call 101 on amd64, where commands are forked.
	proc, err := start(p, Spawn{Shell: perl, Args: []string{"-e", `syscall(101, 0, 0, 0, 0) == 0 or die "traceme: $!"; exec "/bin/sleep", "30"`}, Env: os.Environ()}, true)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Kill(proc.Pid, syscall.SIGKILL)
	done := make(chan struct{})
	var exit int
	var sig string
	go func() {
		defer close(done)
		exit, sig, err = proc.Wait()
	}()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("Wait never returned")
	}
	if err != nil {
		t.Fatal(err)
	}
	if e := syscall.Kill(proc.Pid, 0); e != syscall.ESRCH {
		st, _ := os.ReadFile("/proc/" + itoa(proc.Pid) + "/stat")
		t.Fatalf("Wait returned (exit %d, signal %q) while the command is still there (kill: %v): %s", exit, sig, e, st)
	}
}
