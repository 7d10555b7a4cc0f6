//go:build linux

package sandbox

import (
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// growStack makes the calling goroutine's stack large (it stays so until
// a collection shrinks it).
//
//go:noinline
func growStack(depth int) byte {
	var pad [1 << 10]byte
	if depth == 0 {
		return pad[0]
	}
	pad[depth%len(pad)] = byte(depth)
	return growStack(depth-1) + pad[(depth+1)%len(pad)]
}

// The memory the forked child reads and writes (its stack, the signal
// mask it restores, the default handler it installs, the socket filter
// program) is named by numbers in the step table: it must not be on a
// goroutine's stack, which moves (it grows, and a collection shrinks the
// stack of a parked goroutine). Here the forking goroutine parks on
// ForkLock with a large stack, a collection shrinks (moves) it, and the
// child then restores a signal mask read from the stack's old place
// instead of the thread's, or a socket filter program read from there
// (EINVAL at best); and its own stack is memory the goroutine's stack
// left, which the child writes.
func TestForkedChildMemoryDoesNotMoveWithTheGoroutineStack(t *testing.T) {
	requireFork(t)
	dir := t.TempDir()
	p := Policy{Writable: append([]string{dir}, Devices...), Network: false}
	rules, _, err := cached(p).ruleset()
	if err != nil {
		t.Fatal(err)
	}
	grep, err := exec.LookPath("grep")
	if err != nil {
		t.Skip(err)
	}
	const usr1 = uint64(1) << (syscall.SIGUSR1 - 1)
	run := func(moveStack bool) string {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		files, closeFiles, err := stdioOf(Spawn{Stdout: w, Stderr: w})
		if err != nil {
			t.Fatal(err)
		}
		defer closeFiles()
		if moveStack {
			syscall.ForkLock.RLock()
		}
		done := make(chan error, 1)
		go func() {
			runtime.LockOSThread() // never unlocked: the thread's mask was changed
			mask := usr1
			if _, _, e := syscall.RawSyscall6(syscall.SYS_RT_SIGPROCMASK, unix.SIG_BLOCK, uintptr(unsafe.Pointer(&mask)), 0, 8, 0, 0); e != 0 {
				done <- e
				return
			}
			growStack(1024) // about a megabyte of stack, which a collection may shrink
			proc, err := startForked(rules, runRequest{Path: grep, Args: []string{grep, "^SigBlk:", "/proc/self/status"}}, files)
			if err == nil {
				_, _, err = proc.Wait()
			}
			done <- err
		}()
		if moveStack {
			// Parked on ForkLock, past the step table: a collection
			// shrinks its stack.
			deadline := time.Now().Add(10 * time.Second)
			for {
				buf := make([]byte, 1<<20)
				buf = buf[:runtime.Stack(buf, true)]
				if s := string(buf); strings.Contains(s, "startForked") && strings.Contains(s, "RWMutex).Lock") {
					break
				}
				if time.Now().After(deadline) {
					syscall.ForkLock.RUnlock()
					t.Fatal("the fork never waited on ForkLock")
				}
				time.Sleep(time.Millisecond)
			}
			runtime.GC()
			runtime.GC()
			syscall.ForkLock.RUnlock()
		}
		err = <-done
		w.Close()
		out, _ := io.ReadAll(r)
		if err != nil {
			t.Fatalf("a goroutine with a grown stack (moved while parked: %v) forked a command: %v\n%s", moveStack, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	want := run(false)
	if !strings.Contains(want, "0000000000000200") {
		t.Fatalf("the command's mask is not the forking thread's: %q", want)
	}
	for i := range 3 {
		if got := run(true); got != want {
			t.Fatalf("run %d: with the forking goroutine's stack moved, the command started with %q, not %q: the child read memory the stack left", i, got, want)
		}
	}
}

// Commands of one plan enter the same built ruleset, each in a domain of
// its own (as the zygote's commands each enter a nested one): one cannot
// signal another, even with the ruleset shared.
func TestForkedCommandsOfOnePlanCannotSignalEachOther(t *testing.T) {
	requireFork(t)
	requireLandlock(t, MinScopeABI)
	t.Parallel()
	p := Policy{Writable: Devices, Network: true}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	first, err := start(p, Spawn{Shell: "sleep", Args: []string{"30"}, Stdout: w}, true)
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		syscall.Kill(-first.Pid, syscall.SIGKILL)
		first.Wait()
	}()
	if _, built, _ := cached(p).ruleset(); built {
		t.Fatal("the second command does not share the first's ruleset")
	}
	out, err := confinedBy(t, true, p, `kill -0 `+strconv.Itoa(first.Pid)+` 2>&1 && echo SIGNALLED; kill -TERM -`+strconv.Itoa(first.Pid)+` 2>&1 && echo SIGNALLED; true`)
	if err != nil || strings.Contains(out, "SIGNALLED") {
		t.Errorf("a command signalled another command of its plan: %v\n%s", err, out)
	}
}
