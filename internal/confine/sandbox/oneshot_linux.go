//go:build linux

package sandbox

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// OneShotArg is argv[1] of a one-shot helper: the per-command helper
// started before its plan and command are known (Prestart), which waits
// for both on its control socket (fd 3), confines the thread that will
// run the command exactly as the per-command helper does (restrictThread)
// and then becomes the command (execve). A process that runs one command
// (`toolhost call bash`) starts it while it loads its config, so the
// command pays neither a program start nor a zygote's second round trip,
// nested thread and fork.
const OneShotArg = "__toolhost_sandbox_oneshot__"

// oneShotRun is the control message's one byte; the command's three
// standard files come with it (SCM_RIGHTS), then, on the same stream, the
// request (a JSON line) and the plan (helperArgs' encoding), ended by a
// shutdown of the parent's writing side.
const oneShotRun = 'O'

// oneShotPrepare, which may come once before the command, is a plan the
// command will likely be confined by (the kept plan used last): the byte,
// the plan's length in eight hexadecimal digits and the plan. The helper
// builds its ruleset at once, while toolhost loads its config, and
// answers one byte: oneShotPrepared, or oneShotUnprepared when it could
// not (the command's plan is then built when it comes, and its failure
// reported). oneShotRunPrepared instead of oneShotRun then tells it to
// enter that ruleset: the plan sent with it must be the one prepared,
// byte for byte, or the helper refuses to run anything.
const (
	oneShotPrepare     = 'P'
	oneShotPrepared    = 'p'
	oneShotUnprepared  = 'x'
	oneShotRunPrepared = 'Q'
)

// oneShot is the parent's side of a one-shot helper.
type oneShot struct {
	program bool   // the helper program, not this binary
	path    string // the program's
	cmd     *exec.Cmd
	ctrl    *os.File // our end of the control socket

	mu       sync.Mutex  // orders prepare's write before run's and drop
	prepared *cachedPlan // the plan sent in advance, if any
	answered bool        // the helper's answer to it was read
	ready    bool        // and it built its ruleset, and the plan was fresh after
	used     bool        // settle or drop began: nothing more is prepared
	// ranPrepared records that run told the helper to enter the
	// ruleset it prepared (for tests).
	ranPrepared bool
}

// startOneShot starts a one-shot helper, in a session of its own (so
// that the command it becomes leads its own process group) and in /.
func startOneShot() (*oneShot, error) {
	cmd, ctrl, program, err := startWaiting(OneShotArg, syscall.SOCK_STREAM, "one-shot helper")
	if err != nil {
		return nil, err
	}
	return &oneShot{program: program, path: cmd.Path, cmd: cmd, ctrl: os.NewFile(uintptr(ctrl), "sandbox-oneshot-ctrl")}, nil
}

// drop ends a one-shot helper that will run nothing: without its control
// socket it exits, and it is reaped here.
func (o *oneShot) drop() {
	o.mu.Lock()
	o.used = true
	o.mu.Unlock()
	o.ctrl.Close()
	_ = o.cmd.Process.Kill()
	_ = o.cmd.Wait()
}

// run gives the helper its plan and command and returns the command's
// process (the helper's own, which became the command). An error wrapping
// errProgramMismatch or errOneShotUnused means that the command did not
// run and may be started another way.
//
// With prepared the helper enters the ruleset it built in advance, which
// must be that of enc (settle).
func (o *oneShot) run(enc string, prepared bool, req runRequest, files []*os.File) (*Process, error) {
	o.mu.Lock()
	o.used = true
	o.ranPrepared = prepared
	o.mu.Unlock()
	kind := byte(oneShotRun)
	if prepared {
		kind = oneShotRunPrepared
	}
	body, err := json.Marshal(req)
	if err != nil {
		o.drop()
		return nil, err
	}
	fds := make([]int, len(files))
	for i, f := range files {
		fds[i] = int(f.Fd())
	}
	rc, err := o.ctrl.SyscallConn()
	if err == nil {
		cerr := rc.Control(func(fd uintptr) {
			err = unix.Sendmsg(int(fd), []byte{kind}, unix.UnixRights(fds...), nil, unix.MSG_NOSIGNAL)
		})
		if err == nil {
			err = cerr
		}
	}
	if err != nil {
		o.drop()
		if o.program {
			return nil, errProgramMismatch // ended already: another build's (helperMain)
		}
		return nil, fmt.Errorf("%w: %v", errOneShotUnused, err)
	}
	// Written here, not beside the read: the helper reads the whole body
	// before it writes anything, and a helper that fails early exits,
	// which ends this write (EPIPE).
	_, _ = o.ctrl.Write(append(append(body, '\n'), enc...))
	if rc, err := o.ctrl.SyscallConn(); err == nil {
		_ = rc.Control(func(fd uintptr) { _ = syscall.Shutdown(int(fd), syscall.SHUT_WR) })
	}
	// Everything the helper writes, until execve closes its end.
	msg, rerr := io.ReadAll(io.LimitReader(o.ctrl, 64<<10))
	o.ctrl.Close()
	if bytes.HasPrefix(msg, []byte(programOK)) {
		// Confined and executing, whatever the read met after (a reset
		// when the helper left part of what it was sent unread): never
		// taken for a helper that ran nothing, which Start would follow
		// by running the command again.
		rerr = nil
	}
	if rerr == nil && !bytes.HasPrefix(msg, []byte(programOK)) && !bytes.HasPrefix(msg, []byte(programMismatch)) && len(msg) > 0 {
		// Refused before it confined itself: nothing ran.
		_ = o.cmd.Wait()
		return nil, &HelperError{Msg: string(msg)}
	}
	if rerr != nil || len(msg) == 0 || string(msg) == programMismatch {
		_ = o.cmd.Wait()
		if o.program {
			return nil, errProgramMismatch
		}
		return nil, fmt.Errorf("%w: it ended without an answer", errOneShotUnused)
	}
	if err := programStatus(string(msg)); err != nil {
		// Confined, but the command could not be started.
		_ = o.cmd.Wait()
		return nil, err
	}
	return processOf(o.cmd), nil
}

// prepare sends the helper c's plan, the plan its command will likely be
// confined by, so that it opens the plan's paths and adds its rules
// before the command is known; once the helper has, it checks the plan's
// freshness (awaitPrepared). Failing to prepare costs the command the
// time to build the ruleset, nothing else.
func (o *oneShot) prepare(c *cachedPlan) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.used || o.prepared != nil || c.encErr != nil || len(c.enc) > maxPlan {
		return
	}
	if _, err := fmt.Fprintf(o.ctrl, "%c%08x%s", oneShotPrepare, len(c.enc), c.enc); err == nil {
		o.prepared = c
		o.awaitPrepared()
	}
}

// settle ends preparing: it returns the plan the helper has built its
// ruleset from, found unchanged after the helper opened every path of it,
// or nil. The ruleset is entered only when the command's policy is that
// plan's; a plan made again is built again, even when its text is the
// same.
//
// Why the freshness check may come before the command starts: the
// ruleset is bound to the files its paths named when the helper opened
// them. A plan is fresh when no path it was made from changed since it
// was made (stamps that a change moves and nothing sets back), so a check
// after the opens covers what they bound; a change after the check does
// not change the ruleset, as it does not when the check comes right
// before the command (without a prepared plan the paths are opened after
// the check).
func (o *oneShot) settle() *cachedPlan {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.used = true
	if !o.awaitPrepared() {
		return nil
	}
	return o.prepared
}

// awaitPrepared reads the helper's answer to prepare, once, and reports
// whether it built the ruleset and the plan was fresh after it had. o.mu
// is held.
func (o *oneShot) awaitPrepared() bool {
	if o.prepared == nil {
		return false
	}
	if !o.answered {
		var answer [1]byte
		_, err := io.ReadFull(o.ctrl, answer[:])
		o.answered, o.ready = true, err == nil && answer[0] == oneShotPrepared && o.prepared.fresh()
	}
	return o.ready
}

// errOneShotUnused is a one-shot helper's end before it ran anything.
var errOneShotUnused = errors.New("the prestarted sandbox helper ended before running the command")

// processOf is the Process of a started command run by cmd.
func processOf(cmd *exec.Cmd) *Process {
	return &Process{Pid: cmd.Process.Pid, wait: func() (int, string, error) {
		err := cmd.Wait()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			return -1, "", err
		}
		return cmd.ProcessState.ExitCode(), signalOf(cmd.ProcessState.Sys().(syscall.WaitStatus)), nil
	}}
}

// preparedPlan is what a one-shot helper built from a plan sent in
// advance: rules is nil when building failed (the plan sent with the
// command is then built, and its failure reported, as without one).
type preparedPlan struct {
	enc   string
	rules *builtRuleset
}

// readPrepared reads a plan sent in advance, after its oneShotPrepare
// byte, and builds its ruleset.
func readPrepared(ctrl io.Reader) (*preparedPlan, error) {
	var size [8]byte
	if _, err := io.ReadFull(ctrl, size[:]); err != nil {
		return nil, fmt.Errorf("read the plan sent in advance: %w", err)
	}
	n, err := strconv.ParseUint(string(size[:]), 16, 32)
	if err != nil || n > maxPlan {
		return nil, fmt.Errorf("read the plan sent in advance: bad length %q", size[:])
	}
	enc := make([]byte, n)
	if _, err := io.ReadFull(ctrl, enc); err != nil {
		return nil, fmt.Errorf("read the plan sent in advance: %w", err)
	}
	p := &preparedPlan{enc: string(enc)}
	if a, err := decodeHelperArgs(p.enc); err == nil {
		p.rules, _ = buildRuleset(a)
	}
	return p, nil
}

func init() {
	if len(os.Args) != 2 || os.Args[1] != OneShotArg {
		return
	}
	// This binary re-executed, or the helper program asked by the same
	// build; another build's program ends in helperMain instead.
	if marker := os.Getenv(HelperEnv); marker == helperVersion || marker != "" && marker == programMarker() {
		os.Exit(serveOneShot())
	}
}

// serveOneShot is the helper's side: it waits for its command, confines
// this thread, answers programOK and executes the command. Every failure
// is written on the control socket and ends the process.
func serveOneShot() int {
	ctrl := os.NewFile(zygoteFD, "sandbox-oneshot")
	fail := func(err error) int {
		_, _ = io.WriteString(ctrl, err.Error())
		return helperFailed
	}
	// Nothing toolhost's process left open past fd 3 reaches the command.
	_ = unix.CloseRange(zygoteFD+1, ^uint(0), unix.CLOSE_RANGE_CLOEXEC)
	syscall.CloseOnExec(zygoteFD)
	// What the command will inherit that Landlock does not govern, as it
	// was when toolhost started this helper (the zygote's check).
	before, err := currentInherited()
	if err != nil {
		return fail(err)
	}
	buf := make([]byte, 1)
	oob := make([]byte, unix.CmsgSpace(3*4))
	var n, oobn, flags int
	var prepared *preparedPlan
	defer func() {
		if prepared != nil && prepared.rules != nil {
			prepared.rules.close()
		}
	}()
	for {
		n, oobn, flags, _, err = unix.Recvmsg(zygoteFD, buf, oob, unix.MSG_CMSG_CLOEXEC)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil || n == 0 || buf[0] != oneShotPrepare || oobn != 0 {
			break
		}
		if prepared != nil {
			return fail(errors.New("the one-shot helper was sent two plans in advance"))
		}
		if prepared, err = readPrepared(ctrl); err != nil {
			return fail(err)
		}
		answer := byte(oneShotPrepared)
		if prepared.rules == nil {
			answer = oneShotUnprepared
		}
		if _, err := ctrl.Write([]byte{answer}); err != nil {
			return helperFailed // toolhost is gone
		}
	}
	if err != nil || n == 0 {
		return 0 // toolhost dropped this helper: nothing to run
	}
	files := receivedFiles(oob[:oobn])
	if flags&unix.MSG_CTRUNC != 0 || buf[0] != oneShotRun && buf[0] != oneShotRunPrepared || len(files) != 3 {
		return fail(errors.New("the one-shot helper got a malformed command message"))
	}
	body, err := io.ReadAll(io.LimitReader(ctrl, maxPlan+maxRequest))
	if err != nil {
		return fail(fmt.Errorf("read the command: %w", err))
	}
	line, enc, ok := bytes.Cut(body, []byte{'\n'})
	if !ok {
		return fail(errors.New("read the command: no plan after the request"))
	}
	var rules *builtRuleset
	if buf[0] == oneShotRunPrepared {
		if prepared == nil || prepared.rules == nil || prepared.enc != string(enc) {
			return fail(errors.New("the one-shot helper was told to use a plan it has not prepared"))
		}
		rules, prepared.rules = prepared.rules, nil
	} else {
		a, err := decodeHelperArgs(string(enc))
		if err != nil {
			return fail(err)
		}
		if rules, err = buildRuleset(a); err != nil {
			return fail(err)
		}
	}
	defer rules.close()
	var req runRequest
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil || req.Path == "" || len(req.Args) == 0 {
		return fail(fmt.Errorf("read the command: %v", err))
	}
	if now, err := currentInherited(); err != nil || now != before {
		return fail(errors.New("the helper's resource limits or priority changed while it waited; run the command again"))
	}
	for i, f := range files {
		if err := unix.Dup3(int(f.Fd()), i, 0); err != nil {
			return fail(fmt.Errorf("standard file %d: %w", i, err))
		}
	}
	if req.Dir != "" {
		if err := syscall.Chdir(req.Dir); err != nil {
			return fail(fmt.Errorf("chdir %s: %w", req.Dir, err))
		}
	}
	// This thread alone, which becomes the command.
	if err := rules.enter(); err != nil {
		return fail(err)
	}
	if _, err := io.WriteString(ctrl, programOK); err != nil {
		return helperFailed // toolhost is gone
	}
	if req.Env == nil {
		req.Env = []string{} // never the helper's own environment
	}
	return fail(fmt.Errorf("start %s: %w", req.Path, syscall.Exec(req.Path, req.Args, req.Env)))
}
