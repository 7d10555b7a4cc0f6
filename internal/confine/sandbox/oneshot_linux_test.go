//go:build linux

package sandbox

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// runOneShot starts script with sh under p by the one-shot helper o and
// returns its output, exit status and process.
func runOneShot(t *testing.T, o *oneShot, p Policy, dir, script string, env []string) (string, int, error) {
	t.Helper()
	sh, err := exec.LookPath("bash")
	if err != nil {
		t.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	proc, err := startByOneShot(o, p, runRequest{Path: sh, Args: []string{sh, "-c", script}, Env: env, Dir: dir}, Spawn{Stdout: w, Stderr: w})
	w.Close()
	if err != nil {
		return "", -1, err
	}
	out, _ := io.ReadAll(r)
	exit, _, err := proc.Wait()
	return string(out), exit, err
}

func mustOneShot(t *testing.T) *oneShot {
	t.Helper()
	o, err := startOneShot()
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// The one-shot helper enforces what the per-command helper does: every
// guarantee checked here fails with restrictThread skipped.
func TestAOneShotHelperConfinesItsCommand(t *testing.T) {
	t.Parallel()
	abi := requireLandlock(t, 1)
	dir, outside := t.TempDir(), t.TempDir()
	p := Policy{Writable: append([]string{dir}, Devices...), Network: true}
	// A file toolhost has open, not close-on-exec, must not reach the command.
	leak, err := os.Open(outside)
	if err != nil {
		t.Fatal(err)
	}
	defer leak.Close()
	if _, err := unix.FcntlInt(leak.Fd(), unix.F_SETFD, 0); err != nil {
		t.Fatal(err)
	}
	script := `echo in > in.txt && cat in.txt; pwd
(echo out > ` + outside + `/x) 2>/dev/null && echo ESCAPED-WRITE
kill -0 ` + strconv.Itoa(os.Getpid()) + ` 2>/dev/null && echo SIGNALLED-TOOLHOST
ls /proc/self/fd | tr '\n' ' '; echo
env`
	out, exit, err := runOneShot(t, mustOneShot(t), p, dir, script, []string{"PATH=" + os.Getenv("PATH"), "MINE=1"})
	if err != nil || exit != 0 {
		t.Fatalf("exit %d, %v\n%s", exit, err, out)
	}
	lines := strings.Split(out, "\n")
	if len(lines) < 4 || lines[0] != "in" || lines[1] != dir {
		t.Fatalf("the command did not run in its directory:\n%s", out)
	}
	if strings.Contains(out, "ESCAPED-WRITE") {
		t.Error("the command wrote outside its writable roots")
	}
	if abi >= MinScopeABI && strings.Contains(out, "SIGNALLED-TOOLHOST") {
		t.Error("the command could signal toolhost")
	}
	if fds := strings.Fields(lines[2]); len(fds) != 4 { // 0, 1, 2 and ls's own directory
		t.Errorf("the command holds descriptors beyond its standard files: %v", fds)
	}
	if !strings.Contains(out, "MINE=1") || strings.Contains(out, HelperEnv) || strings.Contains(out, OneShotArg) {
		t.Errorf("the command's environment is not the one it was given:\n%s", out)
	}
}

func TestAOneShotHelperKeepsTheNetworkOffWhenAsked(t *testing.T) {
	t.Parallel()
	requireLandlock(t, MinNetworkABI)
	addr := loopbackListener(t)
	dir := t.TempDir()
	p := Policy{Writable: append([]string{dir}, Devices...), Network: false}
	host, port, _ := strings.Cut(addr, ":")
	out, _, err := runOneShot(t, mustOneShot(t), p, dir, `exec 3<>/dev/tcp/`+host+`/`+port+` && echo CONNECTED`, nil)
	if err == nil && strings.Contains(out, "CONNECTED") {
		t.Fatalf("a command with the network off connected to %s", addr)
	}
}

func TestAOneShotHelperReportsWhatItCouldNotDoAndRunsNothing(t *testing.T) {
	t.Parallel()
	requireLandlock(t, 1)
	dir := t.TempDir()
	p := Policy{Writable: []string{dir}, Network: true}
	tests := []struct {
		name string
		req  runRequest
		want string
	}{
		{"a working directory that does not exist", runRequest{Path: "/bin/sh", Args: []string{"sh", "-c", "echo ran > " + dir + "/ran"}, Dir: filepath.Join(dir, "nope")}, "chdir"},
		{"a program that does not exist", runRequest{Path: filepath.Join(dir, "nope"), Args: []string{"nope"}}, "start"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := startByOneShot(mustOneShot(t), p, tt.req, Spawn{})
			var he *HelperError
			if !errors.As(err, &he) || !strings.Contains(he.Msg, tt.want) {
				t.Errorf("err = %v, want a *HelperError about %q", err, tt.want)
			}
			if _, err := os.Stat(filepath.Join(dir, "ran")); err == nil {
				t.Error("the command ran")
			}
		})
	}
}

// A one-shot helper whose resource limits another process changed while
// it waited (Landlock does not govern prlimit) runs nothing.
func TestAOneShotHelperRefusesLimitsChangedWhileItWaited(t *testing.T) {
	t.Parallel()
	requireLandlock(t, 1)
	dir := t.TempDir()
	o := mustOneShot(t)
	// Let it record its limits, then lower one from outside.
	time.Sleep(200 * time.Millisecond)
	var lim unix.Rlimit
	if err := unix.Prlimit(o.cmd.Process.Pid, unix.RLIMIT_NOFILE, nil, &lim); err != nil {
		t.Fatal(err)
	}
	lim.Cur--
	if err := unix.Prlimit(o.cmd.Process.Pid, unix.RLIMIT_NOFILE, &lim, nil); err != nil {
		t.Fatal(err)
	}
	_, _, err := runOneShot(t, o, Policy{Writable: []string{dir}, Network: true}, dir, `echo ran > ran`, nil)
	var he *HelperError
	if !errors.As(err, &he) || !strings.Contains(he.Msg, "limits") {
		t.Errorf("err = %v, want a refusal naming the changed limits", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "ran")); err == nil {
		t.Error("the command ran")
	}
}

// Not parallel: it uses the process's one spare helper.
func TestAPrestartedHelperServesTheFirstCommandOrIsDropped(t *testing.T) {
	requireLandlock(t, 1)
	helpersOnly(t)
	Prestart()
	spare := pendingSpare()
	if spare == nil {
		t.Fatal("Prestart started no helper")
	}
	dir := t.TempDir()
	p := Policy{Writable: append([]string{dir}, Devices...), Network: true}
	out, exit, err := started(t, p, dir, `echo ran; echo $$`)
	if err != nil || exit != 0 {
		t.Fatalf("exit %d, %v\n%s", exit, err, out)
	}
	left := pendingSpare()
	if left != nil {
		t.Error("the first command did not take the prestarted helper")
	}

	Prestart()
	o := takeSpare()
	if o == nil {
		t.Fatal("the second Prestart started no helper")
	}
	Prestart()
	DropSpare()
	if takeSpare() != nil {
		t.Error("DropSpare left a spare")
	}
	done := make(chan struct{})
	go func() { o.drop(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Error("a dropped helper did not end")
	}
}

// Not parallel: it swaps which helper program this process finds and
// what build it is.
func TestOneShotHelpersAreTheHelperProgramOfThisBuildOnly(t *testing.T) {
	requireLandlock(t, 1)
	program, marker := helperProgramFor(t)
	oldProgram, oldIdentity := helperProgram, identity
	t.Cleanup(func() {
		helperProgram, identity = oldProgram, oldIdentity
		programMismatched.Store(false)
	})
	dir, outside := t.TempDir(), t.TempDir()
	p := Policy{Writable: append([]string{dir}, Devices...), Network: true}
	script := `echo in > in.txt; cat in.txt; (echo x > ` + outside + `/x) 2>/dev/null || echo refused`

	// The same build (as a release's toolhost and program are).
	helperProgram = func() string { return program }
	identity = func() string { return strings.TrimPrefix(marker, helperVersion+"+") }
	o := mustOneShot(t)
	if !o.program || o.path != program {
		t.Fatalf("the one-shot helper is %s (program %v), want the helper program", o.path, o.program)
	}
	if out, exit, err := runOneShot(t, o, p, dir, script, nil); err != nil || exit != 0 || out != "in\nrefused\n" {
		t.Fatalf("exit %d, %v, output %q: want the write inside done and the one outside refused", exit, err, out)
	}

	// Another build's program, and a program that is no helper (or a
	// program from before one-shot helpers): nothing runs, and the error
	// says the command may be confined another way.
	for _, tt := range []struct{ name, program, identity string }{
		{"another build", program, "another build"},
		{"no helper", "/bin/true", strings.TrimPrefix(marker, helperVersion+"+")},
	} {
		helperProgram = func() string { return tt.program }
		identity = func() string { return tt.identity }
		os.Remove(filepath.Join(dir, "in.txt"))
		_, _, err := runOneShot(t, mustOneShot(t), p, dir, script, nil)
		if !errors.Is(err, errProgramMismatch) {
			t.Errorf("%s: err = %v, want errProgramMismatch", tt.name, err)
		}
		if _, err := os.Stat(filepath.Join(dir, "in.txt")); err == nil {
			t.Errorf("%s: the command ran", tt.name)
		}
	}

	// Through Start, the command runs all the same, confined by this
	// binary re-executed, and the program is not asked again.
	identity = func() string { return "another build" }
	Prestart()
	out, exit, err := started(t, p, dir, script)
	if err != nil || exit != 0 || out != "in\nrefused\n" {
		t.Errorf("exit %d, %v, output %q: want the write inside done and the one outside refused", exit, err, out)
	}
	if !programMismatched.Load() {
		t.Error("the mismatch was not remembered")
	}
}

// A helper that answered programOK has become the command, however its
// end of the control socket was closed after: Start must not take it for
// one that ran nothing and run the command a second time. Here the
// "helper" leaves what it was sent unread, so the parent's read after
// the answer fails (ECONNRESET), as it does when a body over the
// helper's limit was cut.
func TestAOneShotHelperThatAnsweredOKIsNeverRunAgain(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	child := os.NewFile(uintptr(fds[1]), "child")
	cmd := exec.Command("sh", "-c", `sleep 0.2; printf 'ok\n' >&3; exec 3>&-; echo ran >> `+dir+`/ran`)
	cmd.ExtraFiles = []*os.File{child}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	child.Close()
	o := &oneShot{cmd: cmd, ctrl: os.NewFile(uintptr(fds[0]), "ctrl")}
	files, closeFiles, err := stdioOf(Spawn{})
	if err != nil {
		t.Fatal(err)
	}
	defer closeFiles()
	proc, err := o.run("plan", false, runRequest{Path: "/bin/true", Args: []string{"true"}}, files)
	if errors.Is(err, errOneShotUnused) || errors.Is(err, errProgramMismatch) {
		t.Fatalf("a helper that answered %q was taken for one that ran nothing: %v", programOK, err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := proc.Wait(); err != nil {
		t.Fatal(err)
	}
}

// A plan of many paths is added to the ruleset from two threads: every
// one of them must be granted.
func TestEveryGrantOfALargePlanIsEnforcedAsGranted(t *testing.T) {
	t.Parallel()
	requireLandlock(t, 1)
	dir := t.TempDir()
	p := Policy{Writable: append([]string{}, Devices...), Network: true}
	for i := range 150 {
		f := filepath.Join(dir, "f"+strconv.Itoa(i))
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		p.Writable = append(p.Writable, f)
	}
	out, exit, err := runOneShot(t, mustOneShot(t), p, dir, `n=0; for f in f*; do echo x > "$f" && n=$((n+1)); done 2>/dev/null; echo $n; (echo x > new) 2>/dev/null || echo refused`, nil)
	if err != nil || exit != 0 || out != "150\nrefused\n" {
		t.Errorf("exit %d, %v, output %q: want all 150 files written and nothing else", exit, err, out)
	}
}

// A model's command travels in the request line before the plan: a
// command holding newlines and text shaped like a plan granting / is
// only a command, run under the plan it was sent with.
func TestACommandShapedLikeAPlanCannotWidenIt(t *testing.T) {
	t.Parallel()
	requireLandlock(t, 1)
	dir, outside := t.TempDir(), t.TempDir()
	p := Policy{Writable: append([]string{dir}, Devices...), Network: true}
	forged := "\n" + argsHeader + "\nnet 1\nW d \"/\"\n"
	script := ": '" + forged + "'\n(echo x > " + outside + "/x) 2>/dev/null && echo ESCAPED || echo refused"
	out, exit, err := runOneShot(t, mustOneShot(t), p, dir, script, nil)
	if err != nil || exit != 0 || out != "refused\n" {
		t.Errorf("exit %d, %v, output %q: want the write outside refused", exit, err, out)
	}
}

// preparedOneShot starts a one-shot helper and sends it p's plan in
// advance, as PreloadPlans does with the plan kept last, waiting for it
// to have built the ruleset.
func preparedOneShot(t *testing.T, p Policy) (*oneShot, *cachedPlan) {
	t.Helper()
	o, c := mustOneShot(t), cached(p)
	o.prepare(c)
	o.mu.Lock()
	ready := o.awaitPrepared()
	o.mu.Unlock()
	if !ready {
		t.Fatal("the helper did not build the plan sent in advance")
	}
	return o, c
}

// A prepared helper confines its command as one sent the plan with it:
// the same guarantees, from the ruleset built while toolhost loaded.
func TestAPreparedOneShotHelperConfinesItsCommand(t *testing.T) {
	t.Parallel()
	abi := requireLandlock(t, 1)
	dir, outside := t.TempDir(), t.TempDir()
	p := Policy{Writable: append([]string{dir}, Devices...), Network: true}
	o, _ := preparedOneShot(t, p)
	script := `echo in > in.txt && cat in.txt
(echo out > ` + outside + `/x) 2>/dev/null && echo ESCAPED-WRITE
kill -0 ` + strconv.Itoa(os.Getpid()) + ` 2>/dev/null && echo SIGNALLED-TOOLHOST
true`
	out, exit, err := runOneShot(t, o, p, dir, script, nil)
	if err != nil || exit != 0 || !strings.HasPrefix(out, "in\n") {
		t.Fatalf("exit %d, %v\n%s", exit, err, out)
	}
	if !o.ranPrepared {
		t.Error("the helper was not told to use the ruleset it prepared")
	}
	if strings.Contains(out, "ESCAPED-WRITE") {
		t.Error("the command wrote outside its writable roots")
	}
	if abi >= MinScopeABI && strings.Contains(out, "SIGNALLED-TOOLHOST") {
		t.Error("the command could signal toolhost")
	}
	if abi >= MinNetworkABI {
		addr := loopbackListener(t)
		host, port, _ := strings.Cut(addr, ":")
		off := Policy{Writable: append([]string{dir}, Devices...), Network: false}
		o, _ := preparedOneShot(t, off)
		out, _, err := runOneShot(t, o, off, dir, `exec 3<>/dev/tcp/`+host+`/`+port+` && echo CONNECTED`, nil)
		if err == nil && strings.Contains(out, "CONNECTED") || !o.ranPrepared {
			t.Errorf("a prepared command with the network off connected to %s (prepared used: %v)", addr, o.ranPrepared)
		}
	}
}

// The prepared ruleset is bound to the files the plan's paths named when
// the helper opened them. Start checks the plan after that: a root
// replaced since (the same path, another directory) makes the plan again
// and the helper builds it again, though the plan's text is the same, so
// that the command is confined by what the paths name now.
func TestAPreparedPlanIsUsedOnlyWhileWhatItOpenedIsUnchanged(t *testing.T) {
	t.Parallel()
	requireLandlock(t, 1)
	base := t.TempDir()
	dir := filepath.Join(base, "root")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := Policy{Writable: append([]string{dir}, Devices...), Network: true}
	o, c := preparedOneShot(t, p)
	moved := filepath.Join(base, "moved")
	if err := os.Rename(dir, moved); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	script := `(echo new > ` + dir + `/x) 2>/dev/null && echo WROTE-NEW
(echo old > ` + moved + `/x) 2>/dev/null && echo WROTE-OLD
true`
	out, exit, err := runOneShot(t, o, p, dir, script, nil)
	if err != nil || exit != 0 {
		t.Fatalf("exit %d, %v\n%s", exit, err, out)
	}
	if o.ranPrepared || cached(p) == c {
		t.Error("a plan whose root was replaced after the helper opened it was used")
	}
	if !strings.Contains(out, "WROTE-NEW") || strings.Contains(out, "WROTE-OLD") {
		t.Errorf("the command was not confined by what its root names now:\n%s", out)
	}

	// Told to use it anyway (run alone, without the check), the helper
	// enters what it built: the grant followed the directory it opened.
	if err := os.Remove(filepath.Join(dir, "x")); err != nil {
		t.Fatal(err)
	}
	o2, c2 := preparedOneShot(t, p)
	if err := os.Rename(dir, filepath.Join(base, "moved2")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	out = runPrepared(t, o2, c2.enc, true, `(echo new > `+dir+`/x) 2>/dev/null && echo WROTE-NEW
(echo old > `+base+`/moved2/x) 2>/dev/null && echo WROTE-OLD`)
	if strings.Contains(out, "WROTE-NEW") || !strings.Contains(out, "WROTE-OLD") {
		t.Errorf("the prepared ruleset was not the one entered:\n%s", out)
	}
}

// runPrepared runs script by o.run directly, with the plan enc and the
// prepared flag given, and returns its output or the error's text.
func runPrepared(t *testing.T, o *oneShot, enc string, prepared bool, script string) string {
	t.Helper()
	o.mu.Lock()
	o.used = true
	o.mu.Unlock()
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
	proc, err := o.run(enc, prepared, runRequest{Path: "/bin/sh", Args: []string{"sh", "-c", script}}, files)
	w.Close()
	if err != nil {
		return "error: " + err.Error()
	}
	out, _ := io.ReadAll(r)
	if _, _, err := proc.Wait(); err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// What a helper is told about a prepared plan cannot make it run a
// command by another plan than the one it was sent with the command, or
// unconfined.
func TestAOneShotHelperRefusesToUseAPlanItHasNotPrepared(t *testing.T) {
	t.Parallel()
	requireLandlock(t, 1)
	dir, other := t.TempDir(), t.TempDir()
	p := Policy{Writable: append([]string{dir}, Devices...), Network: true}
	wide := Policy{Writable: append([]string{dir, other}, Devices...), Network: true}
	mark := `echo ran > ` + dir + `/ran`
	ran := func(t *testing.T) bool {
		t.Helper()
		_, err := os.Stat(filepath.Join(dir, "ran"))
		os.Remove(filepath.Join(dir, "ran"))
		return err == nil
	}
	t.Run("another plan than the one prepared", func(t *testing.T) {
		o, _ := preparedOneShot(t, p)
		out := runPrepared(t, o, cached(wide).enc, true, mark)
		if !strings.Contains(out, "has not prepared") || ran(t) {
			t.Errorf("the helper used a plan it had not prepared: %s", out)
		}
	})
	t.Run("nothing prepared", func(t *testing.T) {
		out := runPrepared(t, mustOneShot(t), cached(p).enc, true, mark)
		if !strings.Contains(out, "has not prepared") || ran(t) {
			t.Errorf("the helper ran with no plan prepared: %s", out)
		}
	})
	t.Run("a prepared plan that did not build", func(t *testing.T) {
		o := mustOneShot(t)
		bad := &cachedPlan{enc: argsHeader + "\nnonsense"}
		o.prepare(bad)
		o.mu.Lock()
		ready := o.awaitPrepared()
		o.mu.Unlock()
		if ready {
			t.Fatal("a plan that cannot be decoded was reported built")
		}
		out := runPrepared(t, o, bad.enc, true, mark)
		if !strings.Contains(out, "has not prepared") || ran(t) {
			t.Errorf("the helper ran by a plan it could not build: %s", out)
		}
	})
	t.Run("the command's own plan when another was prepared", func(t *testing.T) {
		o, _ := preparedOneShot(t, wide)
		out := runPrepared(t, o, cached(p).enc, false, mark+`; (echo x > `+other+`/x) 2>/dev/null && echo WROTE-OTHER`)
		if strings.Contains(out, "WROTE-OTHER") || !ran(t) {
			t.Errorf("the command was not confined by the plan sent with it: %s", out)
		}
	})
	for _, tt := range []struct{ name, raw, want string }{
		{"two plans in advance", "P00000001xP00000001x", "two plans"},
		{"a length that is not hexadecimal", "Pzzzzzzzz", "bad length"},
		{"a length over the limit", "Pffffffff", "bad length"},
		{"a plan cut short", "P00000100abc", "plan sent in advance"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o := mustOneShot(t)
			if _, err := o.ctrl.WriteString(tt.raw); err != nil {
				t.Fatal(err)
			}
			if tt.name == "a plan cut short" {
				if rc, err := o.ctrl.SyscallConn(); err == nil {
					_ = rc.Control(func(fd uintptr) { _ = unix.Shutdown(int(fd), unix.SHUT_WR) })
				}
			}
			msg, _ := io.ReadAll(o.ctrl)
			_ = o.cmd.Wait()
			if !strings.Contains(string(msg), tt.want) {
				t.Errorf("the helper answered %q, want an error about %q", msg, tt.want)
			}
		})
	}
}

// A kept plan sent in advance (what PreloadPlans does) is checked once
// the helper has opened its paths, and used only when it was unchanged
// then; a plan stale by then is made again and built again.
//
// Not parallel: it empties the process's plan cache.
func TestAPreparedKeptPlanIsCheckedAfterTheHelperOpenedIt(t *testing.T) {
	requireLandlock(t, 1)
	p, _ := keptPolicy(t)
	p.Writable, p.Network = append(p.Writable, Devices...), true
	home, work := p.Writable[0], p.Writable[1]
	kept := func(t *testing.T) *cachedPlan {
		t.Helper()
		forget()
		CachedPlan(p) // keeps it
		forget()      // as a new process
		c := loadKept(p.PlanDir, keyOf(p.key()))
		if c == nil {
			t.Fatal("no plan was kept")
		}
		return c
	}
	// The plan carves the shared temporary directory (the fixture's home
	// is in it): another program's file there makes it stale meanwhile.
	used := false
	for range 5 {
		o := mustOneShot(t)
		o.prepare(kept(t))
		out, exit, err := runOneShot(t, o, p, work, `echo ran`, nil)
		if err != nil || exit != 0 || out != "ran\n" {
			t.Fatalf("exit %d, %v\n%s", exit, err, out)
		}
		if used = o.ranPrepared; used {
			break
		}
	}
	if !used {
		t.Fatal("an unchanged kept plan sent in advance was not used")
	}

	o, c := mustOneShot(t), kept(t)
	late := filepath.Join(home, "late.txt")
	if err := os.WriteFile(late, []byte("late"), 0o644); err != nil {
		t.Fatal(err)
	}
	o.prepare(c)
	out, exit, err := runOneShot(t, o, p, work, `cat `+late, nil)
	if o.ranPrepared {
		t.Error("a kept plan made stale before the helper opened its paths was used")
	}
	if err != nil || exit != 0 || out != "late" {
		t.Errorf("the plan made again does not grant what the home holds now: exit %d, %v, %q", exit, err, out)
	}
}

// helpersOnly makes Start confine commands through the helpers for the
// rest of the test, where it would fork them (a test that is not
// parallel: forkStarts is the process's).
func helpersOnly(t *testing.T) {
	t.Helper()
	old := forkStarts
	forkStarts = false
	t.Cleanup(func() { forkStarts = old })
}

// Where commands go through the helpers, the plan PreloadPlans reads is
// sent to Prestart's helper, which builds it; the command's Start uses it
// when it is the policy's.
//
// Not parallel: the process's one spare helper and its preloaded plans.
func TestAPrestartedHelperIsSentTheKeptPlanWhileTheConfigLoads(t *testing.T) {
	requireLandlock(t, 1)
	helpersOnly(t)
	t.Cleanup(func() { resetPreload(t) })
	p, _ := keptPolicy(t)
	p.Writable, p.Network = append(p.Writable, Devices...), true
	work := p.Writable[1]
	// The plan carves the shared temporary directory (the fixture's home
	// is in it): another program's file there makes it stale meanwhile.
	used := false
	for range 5 {
		forget()
		CachedPlan(p) // kept, as by an earlier process
		forget()
		resetPreload(t)
		DropSpare()
		Prestart()
		spare := pendingSpare()
		if spare == nil {
			t.Fatal("Prestart started no helper")
		}
		PreloadPlans(p.PlanDir)
		<-spare.started
		if spare.o == nil {
			t.Fatal("the prestarted helper did not start")
		}
		deadline := time.Now().Add(10 * time.Second)
		for {
			spare.o.mu.Lock()
			sent := spare.o.prepared != nil
			spare.o.mu.Unlock()
			if sent || time.Now().After(deadline) {
				break
			}
			time.Sleep(time.Millisecond)
		}
		out, exit, err := started(t, p, work, `echo ran`)
		if err != nil || exit != 0 || out != "ran\n" {
			t.Fatalf("exit %d, %v\n%s", exit, err, out)
		}
		if used = spare.o.ranPrepared; used {
			break
		}
	}
	if !used {
		t.Error("the kept plan sent to the prestarted helper was not used")
	}
}

// pendingSpare is Prestart's helper not taken yet, or nil.
func pendingSpare() *spareHelper {
	zygotes.Lock()
	defer zygotes.Unlock()
	return zygotes.spare
}
