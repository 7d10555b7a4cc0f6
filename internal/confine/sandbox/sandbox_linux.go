//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// Available returns the kernel's Landlock ABI version, or an error saying
// why commands cannot be confined. It asks the kernel once per process.
func Available() (abi int, err error) { return available() }

var available = sync.OnceValues(func() (int, error) {
	v, err := ll.LandlockGetABIVersion()
	if err != nil || v < 1 {
		if err == nil {
			err = errors.New("ABI version 0")
		}
		return 0, fmt.Errorf("%w: %v; Linux 5.13 or later with landlock in the lsm= boot list confines bash commands", ErrUnsupported, err)
	}
	return v, nil
})

// Command returns a command that runs shell with args confined by p: the
// current executable re-executed as the helper, which restricts itself and
// execs shell. Start it, then call the returned wait before anything else
// reads its state: wait reports a *HelperError when the helper could not
// confine the command (which then did not run), or nil once the shell
// runs. env is the shell's environment (nil: this process's).
func Command(p Policy, shell string, args []string, env []string) (cmd *exec.Cmd, started func() error, err error) {
	self, err := os.Executable()
	if err != nil {
		return nil, nil, fmt.Errorf("sandbox: find this program to re-execute: %w", err)
	}
	return command(self, helperVersion, p, shell, args, env)
}

// command is Command run by program, with marker as HelperEnv's value:
// helperVersion for this binary, programMarker for the helper program,
// which then answers on the status pipe (programStatus).
func command(program, marker string, p Policy, shell string, args []string, env []string) (cmd *exec.Cmd, started func() error, err error) {
	path, err := exec.LookPath(shell)
	if err != nil {
		return nil, nil, fmt.Errorf("sandbox: find shell %s: %w", shell, err)
	}
	enc, err := cachedArgs(p)
	if err != nil {
		return nil, nil, err
	}
	if env == nil {
		env = os.Environ()
	}
	env = slices.DeleteFunc(slices.Clone(env), func(kv string) bool { return strings.HasPrefix(kv, HelperEnv+"=") })
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, fmt.Errorf("sandbox: status pipe: %w", err)
	}
	// A plan too long for one argument (a home directory of thousands
	// of entries, carved) goes through a pipe instead, written while the
	// helper reads it.
	var planR *os.File
	arg := enc
	if len(enc) > maxPlanArg {
		var planW *os.File
		if planR, planW, err = os.Pipe(); err != nil {
			r.Close()
			w.Close()
			return nil, nil, fmt.Errorf("sandbox: plan pipe: %w", err)
		}
		arg = planFromFD
		go func() {
			defer planW.Close()
			_, _ = io.WriteString(planW, enc) // fails only when the helper is gone, which it reports
		}()
	}
	cmd = exec.Command(program, append([]string{HelperArg, arg, path}, args...)...)
	cmd.Env = append(env, HelperEnv+"="+marker)
	cmd.ExtraFiles = []*os.File{w} // fd 3 in the helper
	if planR != nil {
		cmd.ExtraFiles = append(cmd.ExtraFiles, planR) // fd 4
	}
	started = func() error {
		w.Close()
		if planR != nil {
			planR.Close() // the helper holds its own; a writer left blocked ends
		}
		defer r.Close()
		msg, err := io.ReadAll(io.LimitReader(r, 64<<10))
		if err != nil {
			return &HelperError{Msg: "read the helper's status: " + err.Error()}
		}
		if marker != helperVersion {
			return programStatus(string(msg))
		}
		if len(msg) > 0 {
			return &HelperError{Msg: string(msg)}
		}
		return nil
	}
	return cmd, started, nil
}

func init() {
	marker := os.Getenv(HelperEnv)
	if marker == "" || len(os.Args) < 4 || os.Args[1] != HelperArg {
		return
	}
	switch {
	case marker == helperVersion:
		runHelper(false) // does not return
	case marker == programMarker():
		runHelper(true) // the helper program, asked by the same build
	}
	// Another build's helper program: its main says so (helperMain).
}

// runHelper is the child side: restrict, then exec the shell. Every
// failure goes to the status pipe and ends the process with helperFailed.
// ack writes programOK there once confined (the helper program's answer).
func runHelper(ack bool) {
	fail := func(err error) {
		status := os.NewFile(statusFD, "sandbox-status")
		if status == nil || func() error { _, e := io.WriteString(status, err.Error()); return e }() != nil {
			fmt.Fprintln(os.Stderr, "toolhost sandbox:", err)
		}
		os.Exit(helperFailed)
	}
	syscall.CloseOnExec(statusFD)
	enc := os.Args[2]
	if enc == planFromFD {
		syscall.CloseOnExec(planFD)
		b, err := io.ReadAll(io.LimitReader(os.NewFile(planFD, "sandbox-plan"), maxPlan))
		if err != nil {
			fail(fmt.Errorf("read the plan: %w", err))
		}
		enc = string(b)
	}
	p, err := decodeHelperArgs(enc)
	if err != nil {
		fail(err)
	}
	shell, args := os.Args[3], os.Args[3:]
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, HelperEnv+"=") })
	// This thread alone, which executes the shell (the zygote, which
	// starts many, restricts every thread of its own).
	if err := restrictThread(p); err != nil {
		fail(err)
	}
	if ack {
		if _, err := io.WriteString(os.NewFile(statusFD, "sandbox-status"), programOK); err != nil {
			os.Exit(helperFailed) // the caller is gone
		}
	}
	fail(fmt.Errorf("start %s: %w", shell, syscall.Exec(shell, args, env)))
}

// The rights handled: write-type ones and reading files and listing
// directories. Executing stays open (a program outside the readable roots
// still cannot run: the kernel opens it for reading too), as do ioctl and
// UNIX sockets. Making character and block devices is handled and granted
// nowhere: with CAP_MKNOD (toolhost run as root) a node for the disk in a
// writable folder would read every file on it, past every path rule.
const (
	writeFileRights = ll.AccessFSWriteFile | ll.AccessFSTruncate
	writeDirRights  = writeFileRights | ll.AccessFSRemoveDir | ll.AccessFSRemoveFile |
		ll.AccessFSMakeDir | ll.AccessFSMakeReg | ll.AccessFSMakeSock | ll.AccessFSMakeFifo |
		ll.AccessFSMakeSym | ll.AccessFSRefer
	deviceRights   = ll.AccessFSMakeChar | ll.AccessFSMakeBlock
	readFileRights = ll.AccessFSReadFile
	readDirRights  = ll.AccessFSReadFile | ll.AccessFSReadDir
)

// supportedFS are the file system rights each ABI version knows, as bits
// below 1<<n (see the kernel's landlock.h).
func supportedFS(abi int) landlock.AccessFSSet {
	n := 13 // ABI 1
	switch {
	case abi >= 5:
		n = 16
	case abi >= 3:
		n = 15
	case abi == 2:
		n = 14
	}
	return landlock.AccessFSSet(1<<n - 1)
}

// restrict confines this process (all threads) by a: Landlock for the file
// system, TCP and the scopes, then the socket filter when the network is
// off. It refuses what the kernel cannot enforce rather than enforcing
// less of it.
func restrict(a helperArgs) error {
	rs, err := rulesetFor(a)
	if err != nil {
		return err
	}
	cfg := landlock.Config{HandledAccessFS: rs.fs, HandledAccessNet: rs.net, Scoped: rs.scoped}
	// A path the plan saw may be gone by now (a carved directory's entry
	// removed meanwhile); granting nothing for it is what its absence
	// means anyway.
	var rules []landlock.Rule
	for _, g := range rs.grants {
		rules = append(rules, landlock.PathAccess(g.rights, g.paths...).IgnoreIfMissing())
	}
	if err := cfg.Restrict(rules...); err != nil {
		return fmt.Errorf("restrict with Landlock ABI %d: %w", rs.abi, err)
	}
	if !a.Network {
		if err := installSocketFilter(true); err != nil {
			return fmt.Errorf(`%w; "network": false cannot be enforced here, set "sandbox": {"network": true}`, err)
		}
	}
	return nil
}

// ruleset is what restrict and restrictThread enforce for a plan: the
// rights handled and the paths granted each set of them.
type ruleset struct {
	abi     int
	fs      landlock.AccessFSSet
	net     landlock.AccessNetSet
	scoped  landlock.ScopedSet
	grants  []pathGrant
	network bool
}

type pathGrant struct {
	rights landlock.AccessFSSet
	paths  []string
}

// rulesetFor computes the ruleset of a on this kernel, or why it cannot
// be enforced.
func rulesetFor(a helperArgs) (ruleset, error) {
	abi, err := Available()
	if err != nil {
		return ruleset{}, err
	}
	rs := ruleset{abi: abi, network: a.Network}
	rs.fs = landlock.AccessFSSet(writeDirRights|deviceRights|readDirRights) & supportedFS(abi)
	if abi >= MinScopeABI {
		// Signals only to the command's own processes: never to toolhost
		// or anything else of the user's.
		rs.scoped = landlock.ScopedSet(ll.ScopeSignal)
	}
	if !a.Network {
		if abi < MinNetworkABI {
			return ruleset{}, fmt.Errorf(`"network": false needs Landlock ABI %d (Linux 6.12) and this kernel has ABI %d, so the network cannot be turned off; set "sandbox": {"network": true} or upgrade the kernel`, MinNetworkABI, abi)
		}
		rs.net = landlock.AccessNetSet(ll.AccessNetBindTCP | ll.AccessNetConnectTCP)
		rs.scoped |= landlock.ScopedSet(ll.ScopeAbstractUnixSocket)
	}
	add := func(rights landlock.AccessFSSet, paths []string) {
		if len(paths) > 0 {
			rs.grants = append(rs.grants, pathGrant{rights & rs.fs, paths})
		}
	}
	split := func(gs []Grant) (dirs, files []string) {
		for _, g := range gs {
			if g.Dir {
				dirs = append(dirs, g.Path)
			} else {
				files = append(files, g.Path)
			}
		}
		return dirs, files
	}
	wd, wf := split(a.Write)
	rd, rf := split(a.Read)
	add(writeDirRights, wd)
	add(writeFileRights, wf)
	add(readDirRights, rd)
	add(readFileRights, rf)
	add(ll.AccessFSReadDir, a.List)
	return rs, nil
}
