//go:build linux

package sandbox

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// started runs script with sh under p through the zygote (Start without
// forking) and returns its output and exit status.
func started(t *testing.T, p Policy, dir, script string) (string, int, error) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	proc, err := start(p, Spawn{Shell: "sh", Args: []string{"-c", script}, Dir: dir, Env: []string{"PATH=" + os.Getenv("PATH")}, Stdout: w, Stderr: w}, false)
	w.Close()
	if err != nil {
		return "", -1, err
	}
	out, _ := io.ReadAll(r)
	exit, _, err := proc.Wait()
	return string(out), exit, err
}

// zygotePolicy is a policy of its own (its own plan, so its own zygote)
// with dir writable.
func zygotePolicy(t *testing.T) (Policy, string) {
	requireLandlock(t, MinScopeABI)
	dir := t.TempDir()
	return Policy{Writable: append([]string{dir}, Devices...), Network: true}, dir
}

func mustRun(t *testing.T, p Policy, dir, script string) string {
	t.Helper()
	out, exit, err := started(t, p, dir, script)
	if err != nil || exit != 0 {
		t.Fatalf("%s: exit %d, %v\n%s", script, exit, err, out)
	}
	return strings.TrimSpace(out)
}

func TestACommandCannotSignalTraceOrInspectItsZygote(t *testing.T) {
	t.Parallel()
	p, dir := zygotePolicy(t)
	zpid := mustRun(t, p, dir, `echo $PPID`)
	// Reading /proc/<pid>/environ or listing its fds (ptrace's read mode)
	// Landlock leaves to the usual rules, for toolhost as for the zygote;
	// signals and attaching (ptrace, writing its memory) it refuses.
	script := `kill -KILL ` + zpid + ` 2>/dev/null && echo KILLED
		kill -STOP ` + zpid + ` 2>/dev/null && echo STOPPED
		echo x 2>/dev/null >/proc/` + zpid + `/mem && echo WROTE-MEM
		if command -v strace >/dev/null; then timeout 2 strace -p ` + zpid + ` -e trace=none -o /dev/null 2>&1; test $? = 124 && echo TRACED; fi
		echo done`
	out := mustRun(t, p, dir, script)
	for _, bad := range []string{"KILLED", "STOPPED", "WROTE-MEM", "TRACED"} {
		if strings.Contains(out, bad) {
			t.Errorf("a command reached its zygote (%s):\n%s", bad, out)
		}
	}
	t.Log(out)
	if got := mustRun(t, p, dir, `echo $PPID`); got != zpid {
		t.Errorf("the zygote changed from %s to %s: the command affected it", zpid, got)
	}
}

func TestCommandsOfOneZygoteCannotSignalEachOther(t *testing.T) {
	t.Parallel()
	p, dir := zygotePolicy(t)
	// The first command leaves a process behind, as a daemon would.
	left := mustRun(t, p, dir, `sleep 30 >/dev/null 2>&1 & echo $!`)
	pid, err := strconv.Atoi(left)
	if err != nil {
		t.Fatal(left)
	}
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	out := mustRun(t, p, dir, `kill -0 `+left+` 2>/dev/null && echo REACHED; echo x 2>/dev/null >/proc/`+left+`/mem && echo WROTE; echo done`)
	if strings.Contains(out, "REACHED") || strings.Contains(out, "WROTE") {
		t.Errorf("a later command reached an earlier command's process:\n%s", out)
	}
	if err := syscall.Kill(pid, 0); err != nil {
		t.Fatalf("the earlier command's process is gone: %v", err)
	}
}

func TestCommandsGetOnlyTheirOwnFilesEnvironmentAndDirectory(t *testing.T) {
	t.Parallel()
	p, dir := zygotePolicy(t)
	other := t.TempDir()
	// One command runs while the next starts: the zygote then holds the
	// first one's files, which must not reach the second.
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		mustRun(t, p, other, `export LEAK=1; umask 077; sleep 1`)
	}()
	time.Sleep(200 * time.Millisecond)
	out := mustRun(t, p, dir, `ls /proc/self/fd | tr '\n' ' '; echo; pwd; echo "${LEAK-unset} ${`+HelperEnv+`-unset}"; umask`)
	wg.Wait()
	lines := strings.Split(out, "\n")
	if len(lines) != 4 {
		t.Fatalf("unexpected output:\n%s", out)
	}
	if got := strings.Fields(lines[0]); len(got) != 4 { // 0 1 2 and ls's own directory
		t.Errorf("the command holds file descriptors it was not given: %v", got)
	}
	if real, _ := filepath.EvalSymlinks(dir); lines[1] != dir && lines[1] != real {
		t.Errorf("working directory %q, want %q", lines[1], dir)
	}
	if lines[2] != "unset unset" {
		t.Errorf("environment leaked into the command: %q", lines[2])
	}
	old := syscall.Umask(0)
	syscall.Umask(old)
	if want := "0" + strconv.FormatInt(int64(old), 8); strings.TrimLeft(lines[3], "0") != strings.TrimLeft(want, "0") {
		t.Errorf("umask %s, want this process's %s", lines[3], want)
	}
}

func TestAZygoteThatDiesIsReplacedAndTheCommandStaysConfined(t *testing.T) {
	t.Parallel()
	p, dir := zygotePolicy(t)
	outside := t.TempDir()
	first, err := strconv.Atoi(mustRun(t, p, dir, `echo $PPID`))
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(first, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	out, exit, err := started(t, p, dir, `echo $PPID; echo hi > `+outside+`/f`)
	if err != nil {
		t.Fatalf("after the zygote died: %v", err)
	}
	if lines := strings.Fields(out); len(lines) == 0 || lines[0] == strconv.Itoa(first) {
		t.Errorf("the command ran under the dead zygote:\n%s", out)
	}
	if exit == 0 {
		t.Errorf("the command ran unconfined after its zygote died: it wrote outside\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(outside, "f")); err == nil {
		t.Error("a file was written outside the writable roots")
	}
}

func TestAZygoteWhoseLimitsACommandChangedIsNotUsedAgain(t *testing.T) {
	t.Parallel()
	p, dir := zygotePolicy(t)
	before := mustRun(t, p, dir, `ulimit -Hn`)
	out, exit, _ := started(t, p, dir, `prlimit --pid $PPID --nofile=32:32 && echo LOWERED`)
	if exit != 0 || !strings.Contains(out, "LOWERED") {
		t.Skipf("prlimit on the zygote did not work here (%d): %s", exit, out)
	}
	if after := mustRun(t, p, dir, `ulimit -Hn`); after != before {
		t.Errorf("a command's prlimit on the zygote reached the next command: hard limit %s, was %s", after, before)
	}
}

func TestNoZygoteMeansNoCommand(t *testing.T) {
	// Not parallel: it replaces the program zygotes run.
	requireLandlock(t, MinScopeABI)
	old := zygoteExecutable
	zygoteExecutable = func() (string, error) { return "/bin/true", nil }
	t.Cleanup(func() { zygoteExecutable = old })
	dir := t.TempDir()
	p := Policy{Writable: append([]string{dir}, Devices...), Network: true}
	marker := filepath.Join(dir, "ran")
	_, _, err := started(t, p, dir, `touch `+marker)
	var he *HelperError
	if !errors.As(err, &he) {
		t.Errorf("Start without a zygote = %v, want a HelperError", err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the command ran although no zygote confined it")
	}
}

func TestStartGivesDevNullForTheFilesItIsNotGiven(t *testing.T) {
	t.Parallel()
	p, dir := zygotePolicy(t)
	for _, byFork := range startWays() {
		proc, err := start(p, Spawn{Shell: "sh", Args: []string{"-c", `read x; echo out; echo err >&2; test "$(readlink /proc/self/fd/0)" = /dev/null`}, Dir: dir}, byFork)
		if err != nil {
			t.Fatal(err)
		}
		if exit, sig, err := proc.Wait(); exit != 0 || err != nil {
			t.Errorf("fork %v: exit %d %s %v, want 0: standard input was not /dev/null", byFork, exit, sig, err)
		}
	}
}

// startWays are the ways start may confine a command here: through the
// helpers, and forked where vforkSteps exists.
func startWays() []bool {
	if forkSupported {
		return []bool{false, true}
	}
	return []bool{false}
}
