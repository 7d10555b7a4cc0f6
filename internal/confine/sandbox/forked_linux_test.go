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
)

// wayName names a way of confining a command in test messages.
func wayName(byFork bool) string {
	if byFork {
		return "forked"
	}
	return "helper"
}

// confinedBy runs script with sh under p, through the per-command helper
// (Command) or forked by this process (start), and returns its output and
// error: a failed confinement is a *HelperError, a failed command an
// error naming its exit status.
func confinedBy(t *testing.T, byFork bool, p Policy, script string) (string, error) {
	t.Helper()
	if !byFork {
		return confined(t, p, script)
	}
	return startedBy(t, p, Spawn{Shell: "sh", Args: []string{"-c", script}, Env: os.Environ()})
}

// startedBy forks s under p and returns its output and error.
func startedBy(t *testing.T, p Policy, s Spawn) (string, error) {
	t.Helper()
	return startedWay(t, p, s, true)
}

// startedWay starts s under p, forked or through the helpers, and
// returns its output and error.
func startedWay(t *testing.T, p Policy, s Spawn, byFork bool) (string, error) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	s.Stdout, s.Stderr = w, w
	proc, err := start(p, s, byFork)
	w.Close()
	if err != nil {
		return "", err
	}
	out, _ := io.ReadAll(r)
	exit, sig, err := proc.Wait()
	if err == nil && exit != 0 {
		err = errors.New("exit status " + strconv.Itoa(exit) + " " + sig)
	}
	return string(out), err
}

// probedBy is probed, through the helper or forked.
func probedBy(t *testing.T, byFork bool, p Policy, op, arg string) (bool, string) {
	t.Helper()
	if !byFork {
		return probed(t, p, op, arg)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	out, err := startedBy(t, p, Spawn{Shell: "sh", Args: []string{"-c", `exec "$0"`, self}, Env: append(os.Environ(), probeEnv+"="+op+" "+arg)})
	var he *HelperError
	if errors.As(err, &he) {
		t.Fatalf("the fork failed: %v", err)
	}
	return err == nil, out
}

func requireFork(t *testing.T) {
	t.Helper()
	requireLandlock(t, 1)
	if !forkSupported {
		t.Skip("commands are confined through the helpers on this platform")
	}
}

// What the forked child does before execve, seen from the command: its own
// session, no_new_privs, no blocked signal and no handler but the
// defaults, no descriptor of this process past its standard files, the
// environment it was given and nothing else; and this process, which
// forked it, not restricted.
func TestAForkedCommandStartsAsTheHelpersStartIt(t *testing.T) {
	requireFork(t)
	t.Parallel()
	dir, outside := t.TempDir(), t.TempDir()
	leak, err := os.Open(outside)
	if err != nil {
		t.Fatal(err)
	}
	defer leak.Close()
	if _, _, err := syscall.Syscall(syscall.SYS_FCNTL, leak.Fd(), syscall.F_SETFD, 0); err != 0 {
		t.Fatal(err)
	}
	p := Policy{Writable: append([]string{dir}, Devices...), Network: true}
	script := `set -e
read -r stat < /proc/$$/stat; set -- $stat; test "$6" = $$ && echo SESSION-LEADER
echo FDS: $(ls /proc/$$/fd)
pwd
env | sort`
	out, err := startedBy(t, p, Spawn{Shell: "bash", Args: []string{"-c", script}, Dir: dir, Env: []string{"ONLY=this"}})
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{"SESSION-LEADER", "\n" + dir + "\n", "ONLY=this"} {
		if !strings.Contains(out, want) {
			t.Errorf("the command's start lacks %q:\n%s", want, out)
		}
	}
	if _, fds, _ := strings.Cut(out, "FDS: "); len(strings.Fields(strings.Split(fds, "\n")[0])) != 4 { // 0, 1, 2 and ls's own directory
		t.Errorf("the command holds descriptors beyond its standard files: %s", strings.Split(fds, "\n")[0])
	}
	// The program itself, executed with what the child left it.
	status, err := startedBy(t, p, Spawn{Shell: "grep", Args: []string{"-E", "^(NoNewPrivs|SigBlk|SigIgn):", "/proc/self/status"}})
	if err != nil {
		t.Fatalf("%v\n%s", err, status)
	}
	for _, want := range []string{"NoNewPrivs:\t1", "SigBlk:\t0000000000000000", "SigIgn:\t0000000000000000"} {
		if !strings.Contains(status, want) {
			t.Errorf("the command's start lacks %q:\n%s", want, status)
		}
	}
	if strings.Contains(out, "PATH=/") || strings.Contains(out, HelperEnv) {
		t.Errorf("the command's environment is not the one it was given:\n%s", out)
	}
	// Nothing of the restriction reached this process's threads.
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := os.WriteFile(filepath.Join(outside, strconv.Itoa(i)), nil, 0o644); err != nil {
				t.Errorf("this process was restricted too: %v", err)
			}
		}()
	}
	wg.Wait()
}

// Failures before execve are reported by step, and nothing runs.
func TestAForkedCommandThatCannotStartReportsWhyAndRunsNothing(t *testing.T) {
	requireFork(t)
	t.Parallel()
	dir := t.TempDir()
	p := Policy{Writable: []string{dir}, Network: true}
	tests := []struct {
		name string
		s    Spawn
		want string
	}{
		{"a working directory that does not exist", Spawn{Shell: "sh", Args: []string{"-c", "echo ran > " + dir + "/ran"}, Dir: filepath.Join(dir, "nope")}, "chdir"},
		{"a working directory it may not enter", Spawn{Shell: "sh", Args: []string{"-c", "echo ran > " + dir + "/ran"}, Dir: "/root/../proc/1/cwd"}, "chdir"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := startedBy(t, p, tt.s)
			var he *HelperError
			if !errors.As(err, &he) || !strings.Contains(he.Msg, tt.want) {
				t.Errorf("err = %v, want a *HelperError about %q", err, tt.want)
			}
			if _, err := os.Stat(filepath.Join(dir, "ran")); err == nil {
				t.Error("the command ran")
			}
		})
	}
	// A program that execve refuses (not executable): reported by the
	// step that starts it.
	script := filepath.Join(dir, "script")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho ran > "+dir+"/ran\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	files, closeFiles, err := stdioOf(Spawn{})
	if err != nil {
		t.Fatal(err)
	}
	defer closeFiles()
	c := cached(p)
	rules, _, err := c.ruleset()
	if err != nil {
		t.Fatal(err)
	}
	_, err = startForked(rules, runRequest{Path: script, Args: []string{script}}, files)
	var he *HelperError
	if !errors.As(err, &he) || !strings.Contains(he.Msg, "start "+script) || !strings.Contains(he.Msg, "permission denied") {
		t.Errorf("err = %v, want a *HelperError about starting %s", err, script)
	}
	if _, err := os.Stat(filepath.Join(dir, "ran")); err == nil {
		t.Error("the command ran")
	}
}

// A plan's ruleset is built once and entered by every command of the plan
// while it is fresh; a root replaced since makes the plan, and its
// ruleset, again, so that commands are confined by what the paths name
// now.
func TestForkedCommandsEnterTheRulesetOfThePlanAsItIsNow(t *testing.T) {
	requireFork(t)
	t.Parallel()
	base := t.TempDir()
	dir := filepath.Join(base, "root")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := Policy{Writable: append([]string{dir}, Devices...), Network: true}
	write := func(name string) string {
		out, _ := confinedBy(t, true, p, `(echo x > `+dir+`/`+name+`) 2>/dev/null && echo WROTE-NEW; (echo x > `+base+`/moved/`+name+`) 2>/dev/null && echo WROTE-OLD; true`)
		return out
	}
	if out := write("a"); !strings.Contains(out, "WROTE-NEW") {
		t.Fatalf("the writable root is not writable:\n%s", out)
	}
	first := cached(p)
	if _, built, _ := first.ruleset(); built {
		t.Error("the plan's ruleset was built again for its second use")
	}
	if err := os.Rename(dir, filepath.Join(base, "moved")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	out := write("b")
	if !strings.Contains(out, "WROTE-NEW") || strings.Contains(out, "WROTE-OLD") {
		t.Errorf("the command was not confined by what its root names now:\n%s", out)
	}
	if cached(p) == first {
		t.Error("the plan of a replaced root was not made again")
	}
}

// Many commands forked at once, from many goroutines: each confined, and
// no descriptor left behind in this process.
func TestForkedCommandsStartedTogetherAreEachConfined(t *testing.T) {
	requireFork(t)
	dir, outside := t.TempDir(), t.TempDir()
	p := Policy{Writable: append([]string{dir}, Devices...), Network: true}
	// One first: the plan's ruleset and the runtime's poller (made on a
	// first use) are this process's from then on.
	if out, err := confinedBy(t, true, p, "true"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	before, _ := os.ReadDir("/proc/self/fd")
	var wg sync.WaitGroup
	for i := range 24 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n := strconv.Itoa(i)
			out, err := confinedBy(t, true, p, `echo `+n+` > `+dir+`/`+n+` && cat `+dir+`/`+n+`; (echo x > `+outside+`/`+n+`) 2>/dev/null && echo ESCAPED; true`)
			if err != nil || strings.TrimSpace(out) != n {
				t.Errorf("command %s: %v\n%s", n, err, out)
			}
		}()
	}
	wg.Wait()
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("%d commands wrote outside their root", len(entries))
	}
	if after, _ := os.ReadDir("/proc/self/fd"); len(after) > len(before) {
		var names []string
		for _, e := range after {
			l, _ := os.Readlink("/proc/self/fd/" + e.Name())
			names = append(names, e.Name()+"="+l)
		}
		t.Errorf("descriptors left open: %d before, %d after: %v", len(before), len(after), names)
	}
}

// `toolhost call bash` (Prestart, then PreloadPlans while the config
// loads) builds the kept plan's ruleset and checks the plan after the
// build; Start then enters that ruleset without checking again. Seen from
// a command: a file created in a carved directory after that check is
// not granted (the ruleset was bound before it existed), where a plan
// checked at Start would have been made again and granted it.
//
// Not parallel: the process's preloaded plans.
func TestAPreparedKeptPlanIsEnteredAsItWasBuilt(t *testing.T) {
	requireFork(t)
	t.Cleanup(func() { resetPreload(t); resetForkPrepared() })
	p, _ := keptPolicy(t)
	p.Writable, p.Network = append(p.Writable, Devices...), true
	home, work := p.Writable[0], p.Writable[1]
	// The plan carves the shared temporary directory (the fixture's home
	// is in it): another program's file there makes it stale meanwhile.
	for attempt := 0; ; attempt++ {
		resetForkPrepared()
		forget()
		CachedPlan(p) // kept, as by an earlier process
		forget()
		resetPreload(t)
		Prestart()
		PreloadPlans(p.PlanDir)
		preloaded.Lock()
		read := preloaded.done
		preloaded.Unlock()
		<-read
		forkPrepared.Lock()
		done := forkPrepared.done
		forkPrepared.Unlock()
		if done == nil {
			t.Fatal("the kept plan was not prepared")
		}
		<-done
		forkPrepared.Lock()
		ready := forkPrepared.ready
		forkPrepared.Unlock()
		if !ready && attempt < 5 {
			continue
		}
		if !ready {
			t.Fatal("the prepared kept plan was never fresh")
		}
		break
	}
	late := filepath.Join(home, "late.txt")
	if err := os.WriteFile(late, []byte("late"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := startedBy(t, p, Spawn{Shell: "sh", Args: []string{"-c", "cat " + late + " 2>/dev/null || echo NOT-GRANTED"}, Dir: work})
	if err != nil || strings.TrimSpace(out) != "NOT-GRANTED" {
		t.Errorf("the prepared plan was not the one entered: %v, %q", err, out)
	}
	// The next command checks the plan, finds the home changed, and is
	// confined by a plan made again.
	out, err = confinedBy(t, true, p, "cat "+late)
	if err != nil || out != "late" {
		t.Errorf("the plan was not made again after the home changed: %v, %q", err, out)
	}
}

// resetForkPrepared forgets what Prestart and prepareFork set up.
func resetForkPrepared() {
	forkPrepared.Lock()
	done := forkPrepared.done
	forkPrepared.Unlock()
	if done != nil {
		<-done
	}
	forkPrepared.Lock()
	forkPrepared.on, forkPrepared.done, forkPrepared.c, forkPrepared.ready = false, nil, nil, false
	forkPrepared.Unlock()
}

// A plan whose ruleset could not be built (here: no descriptor left to
// open its paths) refuses its command, and is built again for the next
// one rather than refusing every command of the plan from then on.
//
// Not parallel: it lowers this process's limit of open files.
func TestARulesetThatCouldNotBeBuiltIsBuiltAgainNextTime(t *testing.T) {
	requireFork(t)
	dir := t.TempDir()
	p := Policy{Writable: append([]string{dir}, Devices...), Network: true}
	c := cached(p)
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	// New descriptors take the lowest free number, below the limit: one
	// free number below it, for the ruleset, and none for a path.
	open, _ := os.ReadDir("/proc/self/fd")
	used := map[int]bool{}
	for _, e := range open {
		if _, err := os.Readlink("/proc/self/fd/" + e.Name()); err == nil { // not the listing's own
			n, _ := strconv.Atoi(e.Name())
			used[n] = true
		}
	}
	free, frees := 0, 0
	for ; frees < 2; free++ {
		if !used[free] {
			frees++
		}
	}
	low := lim
	low.Cur = uint64(free - 1)
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &low); err != nil {
		t.Fatal(err)
	}
	_, _, err := c.ruleset()
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	var he *HelperError
	if !errors.As(err, &he) {
		t.Fatalf("building with no descriptor left = %v, want a HelperError", err)
	}
	if _, built, err := c.ruleset(); err != nil || !built {
		t.Errorf("the ruleset was not built again: built %v, %v", built, err)
	}
	if out, err := confinedBy(t, true, p, "echo ok"); err != nil || out != "ok\n" {
		t.Errorf("the plan's next command: %v, %q", err, out)
	}
}
