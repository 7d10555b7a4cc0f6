//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Commands forked by toolhost itself (where vforkSteps exists).
//
// A command is confined by the process that becomes it, between its fork
// and its execve: that is why the helpers exist, since Go runs no code of
// ours in a forked child. vforkSteps is that code, in assembly: the child
// of a vfork, sharing toolhost's memory on a stack of its own, makes a
// list of system calls prepared beforehand and nothing else (no Go code,
// no allocation, every signal blocked until its handlers are reset), the
// last of them execve. Among them are what the helpers do before they
// execute the command: a session of its own, the standard files, the
// working directory, every other descriptor closed on execve,
// no_new_privs, entering the plan's Landlock ruleset (built by toolhost,
// once per plan) and the socket filter. toolhost's own threads are never
// restricted, and nothing of the command runs before it is confined.
//
// So a sandboxed command costs what a plain one does, plus entering the
// ruleset: no helper program starts, no message is sent, and a process
// that runs one command (`toolhost call bash`) builds its ruleset while it
// loads its config (PreloadPlans).
//
// One difference from a plain command: the command keeps toolhost's soft
// limit of open files, which Go raises to the hard limit when it starts
// (os/exec gives its children the original, which only package syscall
// knows). A command may raise its own limit that far anyway.

// ForksCommands reports whether commands are forked and confined by this
// process itself, with no helper program (`toolhost doctor`).
func ForksCommands() bool { return forkStarts }

// step is one system call the forked child makes: its number and its six
// arguments.
type step [7]uintptr

// forkSteps are the steps of a fork and their names for errors.
type forkSteps struct {
	steps []step
	names []string
}

func (f *forkSteps) add(name string, nr uintptr, args ...uintptr) {
	var s step
	s[0] = nr
	copy(s[1:], args)
	f.steps = append(f.steps, s)
	f.names = append(f.names, name)
}

// kernelSigaction is struct sigaction as rt_sigaction takes it.
type kernelSigaction struct {
	handler, flags, restorer uintptr
	mask                     uint64
}

const (
	sigDFL = 0
	sigIGN = 1
)

// forkMem is the memory the forked child uses besides the steps and the
// command's strings: its stack, and what steps point to. The steps hold
// its addresses as numbers, so it must be on the heap: a goroutine's stack
// moves (it grows, and a collection shrinks it), and the child would read
// and write where it was.
type forkMem struct {
	dfl              kernelSigaction
	oldMask, allMask uint64
	fprog            unix.SockFprog
	stack            [16 << 10]byte
}

// newForkMem allocates a forkMem on the heap (returned from a function
// that is not inlined, it escapes).
//
//go:noinline
func newForkMem() *forkMem { return new(forkMem) }

// startForked starts req confined by rules, its standard files files,
// as a child of this process in a session of its own.
func startForked(rules *builtRuleset, req runRequest, files []*os.File) (*Process, error) {
	path, err := syscall.BytePtrFromString(req.Path)
	if err != nil {
		return nil, fmt.Errorf("sandbox: command path: %w", err)
	}
	argv, err := syscall.SlicePtrFromStrings(req.Args)
	if err != nil {
		return nil, fmt.Errorf("sandbox: command arguments: %w", err)
	}
	envv, err := syscall.SlicePtrFromStrings(req.Env)
	if err != nil {
		return nil, fmt.Errorf("sandbox: command environment: %w", err)
	}
	var dir *byte
	if req.Dir != "" {
		if dir, err = syscall.BytePtrFromString(req.Dir); err != nil {
			return nil, fmt.Errorf("sandbox: working directory: %w", err)
		}
	}
	mem := newForkMem()
	var fprog *unix.SockFprog
	var filter []unix.SockFilter
	if !rules.network {
		if filter, err = socketFilter(); err != nil {
			return nil, &HelperError{Msg: fmt.Sprintf(`%v; "network": false cannot be enforced here, set "sandbox": {"network": true}`, err)}
		}
		mem.fprog = unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
		fprog = &mem.fprog
	}

	// The command's standard files, copied above 2 so that no dup3 of
	// the child's meets its own target (dup3 refuses equal descriptors).
	var std [3]int
	for i := range std {
		std[i] = -1
	}
	defer func() {
		for _, fd := range std {
			if fd >= 0 {
				syscall.Close(fd)
			}
		}
	}()
	for i, f := range files {
		fd, err := unix.FcntlInt(f.Fd(), unix.F_DUPFD_CLOEXEC, 3)
		if err != nil {
			return nil, fmt.Errorf("sandbox: standard file %d: %w", i, err)
		}
		std[i] = fd
	}
	// The child reports a failed step on this pipe; execve closes it.
	var report [2]int
	if err := unix.Pipe2(report[:], unix.O_CLOEXEC); err != nil {
		return nil, fmt.Errorf("sandbox: report pipe: %w", err)
	}
	defer syscall.Close(report[0])

	mem.dfl = kernelSigaction{handler: sigDFL}
	dfl, oldMask, allMask := &mem.dfl, &mem.oldMask, &mem.allMask
	*allMask = ^uint64(0)
	var f forkSteps
	// Go's handlers must not run in the child: every signal is blocked
	// from before the fork, reset to its default, then unblocked as the
	// command's mask (this thread's before the fork) just before execve.
	for sig := uintptr(1); sig <= 64; sig++ {
		if sig == uintptr(syscall.SIGKILL) || sig == uintptr(syscall.SIGSTOP) {
			continue
		}
		var act kernelSigaction
		if _, _, e := syscall.RawSyscall6(syscall.SYS_RT_SIGACTION, sig, 0, uintptr(unsafe.Pointer(&act)), 8, 0, 0); e != 0 {
			continue // not a signal on this kernel
		}
		// Every signal not ignored, handled now or not: a handler
		// installed meanwhile (signal.Notify) is reset too.
		if act.handler != sigIGN {
			f.add("reset a signal's handler", syscall.SYS_RT_SIGACTION, sig, uintptr(unsafe.Pointer(dfl)), 0, 8)
		}
	}
	f.add("setsid", syscall.SYS_SETSID)
	for i, fd := range std {
		f.add(fmt.Sprintf("standard file %d", i), syscall.SYS_DUP3, uintptr(fd), uintptr(i), 0)
	}
	if dir != nil {
		f.add("chdir "+req.Dir, syscall.SYS_CHDIR, uintptr(unsafe.Pointer(dir)))
	}
	// Nothing toolhost's process holds past the standard files reaches
	// the command, whoever opened it without close-on-exec.
	f.add("close descriptors on execve", unix.SYS_CLOSE_RANGE, 3, uintptr(^uint32(0)), unix.CLOSE_RANGE_CLOEXEC)
	f.add("no_new_privs", syscall.SYS_PRCTL, unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
	f.add(fmt.Sprintf("restrict with Landlock ABI %d", rules.rs.abi), unix.SYS_LANDLOCK_RESTRICT_SELF, uintptr(rules.fd), 0)
	if fprog != nil {
		f.add(`install the socket filter (seccomp); "network": false cannot be enforced here, set "sandbox": {"network": true}`, unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(fprog)))
	}
	f.add("restore the signal mask", syscall.SYS_RT_SIGPROCMASK, unix.SIG_SETMASK, uintptr(unsafe.Pointer(oldMask)), 0, 8)
	f.add("start "+req.Path, syscall.SYS_EXECVE, uintptr(unsafe.Pointer(path)), uintptr(unsafe.Pointer(&argv[0])), uintptr(unsafe.Pointer(&envv[0])))

	stack := mem.stack[:]
	top := (uintptr(unsafe.Pointer(&stack[len(stack)-1])) - 64) &^ 15

	// This thread, with every signal blocked, forks; the child starts
	// with that mask. ForkLock: no descriptor is being made without
	// close-on-exec meanwhile (the fork's contract in package syscall).
	runtime.LockOSThread()
	syscall.ForkLock.Lock()
	_, _, e := syscall.RawSyscall6(syscall.SYS_RT_SIGPROCMASK, unix.SIG_SETMASK, uintptr(unsafe.Pointer(allMask)), uintptr(unsafe.Pointer(oldMask)), 8, 0, 0)
	var pid, errno uintptr
	if e == 0 {
		pid, errno = vforkSteps(top, &f.steps[0], uintptr(len(f.steps)), uintptr(report[1]))
		syscall.RawSyscall6(syscall.SYS_RT_SIGPROCMASK, unix.SIG_SETMASK, uintptr(unsafe.Pointer(oldMask)), 0, 8, 0, 0)
	}
	syscall.ForkLock.Unlock()
	runtime.UnlockOSThread()
	runtime.KeepAlive(mem)
	runtime.KeepAlive(f.steps)
	runtime.KeepAlive(path)
	runtime.KeepAlive(argv)
	runtime.KeepAlive(envv)
	runtime.KeepAlive(dir)
	runtime.KeepAlive(fprog)
	runtime.KeepAlive(filter)
	runtime.KeepAlive(dfl)
	runtime.KeepAlive(rules)
	syscall.Close(report[1])
	if e != 0 {
		return nil, fmt.Errorf("sandbox: block signals for the fork: %w", e)
	}
	if errno != 0 {
		return nil, &HelperError{Msg: "fork the command: " + syscall.Errno(errno).Error()}
	}

	var msg [16]byte
	n, rerr := readReport(report[0], msg[:])
	if n == 0 && rerr == nil {
		return forkedProcess(int(pid)), nil // executing: execve closed the pipe
	}
	_, _, _ = forkedProcess(int(pid)).Wait()
	if n != len(msg) {
		return nil, &HelperError{Msg: fmt.Sprintf("the forked command ended before it was started (%d bytes reported: %v)", n, rerr)}
	}
	i := *(*uintptr)(unsafe.Pointer(&msg[0]))
	cause := syscall.Errno(*(*uintptr)(unsafe.Pointer(&msg[8])))
	if i >= uintptr(len(f.names)) {
		return nil, &HelperError{Msg: "the forked command ran out of steps without starting"}
	}
	return nil, &HelperError{Msg: fmt.Sprintf("%s: %v", f.names[i], cause)}
}

// readReport reads what the child wrote on the report pipe until its end
// (execve or the child's exit closes it): nothing, or a failed step.
func readReport(fd int, msg []byte) (int, error) {
	n := 0
	for n < len(msg) {
		m, err := syscall.Read(fd, msg[n:])
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return n, err
		}
		if m == 0 {
			break
		}
		n += m
	}
	return n, nil
}

// forkedProcess is the Process of a child this process forked.
func forkedProcess(pid int) *Process {
	var once sync.Once
	var exit int
	var sig string
	var err error
	return &Process{Pid: pid, wait: func() (int, string, error) {
		once.Do(func() {
			var ws syscall.WaitStatus
			for {
				_, err = syscall.Wait4(pid, &ws, 0, nil)
				if err == nil && ws.Stopped() {
					// Without WUNTRACED only a tracee's stops are
					// reported: the command made this process its
					// tracer (PTRACE_TRACEME), which never resumes it.
					// It is ended rather than left stopped, unreaped.
					syscall.Kill(pid, syscall.SIGKILL)
					continue
				}
				if !errors.Is(err, syscall.EINTR) {
					break
				}
			}
			if err != nil {
				exit = -1
				return
			}
			exit, sig = ws.ExitStatus(), signalOf(ws)
		})
		return exit, sig, err
	}}
}

// startByFork is Start where vforkSteps exists: the plan's ruleset, built
// once per plan (cachedPlan.ruleset), entered by a forked child.
func startByFork(p Policy, req runRequest, s Spawn) (*Process, error) {
	c := takeForkPrepared(p)
	var rules *builtRuleset
	for attempt := 0; rules == nil; attempt++ {
		if c == nil {
			c = cached(p)
		}
		r, built, err := c.ruleset()
		if err != nil {
			return nil, err
		}
		// A ruleset built now is bound to what the plan's paths name now:
		// the plan is checked again after, so that its check covers the
		// files bound (a plan stale by then is made again, a few times
		// at most: past that, the check made before the build stands, as
		// it always did).
		if built && attempt < 3 && !c.fresh() {
			c = nil
			continue
		}
		rules = r
	}
	files, closeFiles, err := stdioOf(s)
	if err != nil {
		return nil, err
	}
	defer closeFiles()
	return startForked(rules, req, files)
}

// ruleset returns the ruleset of c's plan, building it on first use, and
// whether this call built it. Its descriptor is closed once the ruleset
// is unreachable. A failed build is not kept: the next use tries again
// (a shortage of descriptors or memory passes).
func (c *cachedPlan) ruleset() (*builtRuleset, bool, error) {
	c.rulesMu.Lock()
	defer c.rulesMu.Unlock()
	if c.rules != nil {
		return c.rules, false, nil
	}
	if c.encErr != nil {
		return nil, false, c.encErr
	}
	r, err := buildRuleset(c.args)
	if err != nil {
		return nil, true, &HelperError{Msg: err.Error()}
	}
	c.rules = r
	runtime.AddCleanup(r, func(fd int) { syscall.Close(fd) }, r.fd)
	return r, true, nil
}

// forkPrepared is the plan a process that runs one command (Prestart)
// read and built in advance: ready once the ruleset is built and the plan
// was found fresh after.
var forkPrepared struct {
	sync.Mutex
	on    bool          // Prestart was called
	done  chan struct{} // closed once c and ready are set
	c     *cachedPlan
	ready bool
}

// prepareFork builds c's ruleset in the background, then checks that the
// plan is still fresh (see oneShot.settle for why a check after the
// build may stand for one at the start).
func prepareFork(c *cachedPlan) {
	forkPrepared.Lock()
	defer forkPrepared.Unlock()
	if !forkPrepared.on || forkPrepared.done != nil {
		return
	}
	done := make(chan struct{})
	forkPrepared.done = done
	go func() {
		defer close(done)
		_, _, err := c.ruleset()
		ready := err == nil && c.fresh()
		forkPrepared.Lock()
		forkPrepared.c, forkPrepared.ready = c, ready
		forkPrepared.Unlock()
	}()
}

// takeForkPrepared returns the plan prepareFork built, once, when it is
// p's and was ready.
func takeForkPrepared(p Policy) *cachedPlan {
	forkPrepared.Lock()
	done := forkPrepared.done
	forkPrepared.on, forkPrepared.done = false, nil
	forkPrepared.Unlock()
	if done == nil {
		return nil
	}
	<-done
	forkPrepared.Lock()
	c, ready := forkPrepared.c, forkPrepared.ready
	forkPrepared.c, forkPrepared.ready = nil, false
	forkPrepared.Unlock()
	if !ready || !adoptPrepared(p, c) {
		return nil
	}
	return c
}
