//go:build linux

package sandbox

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"syscall"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

func init() {
	if len(os.Args) != 2 || os.Args[1] != ZygoteArg {
		return
	}
	// This binary re-executed, or the helper program asked by the same
	// build; another build's program ends in helperMain instead.
	if marker := os.Getenv(HelperEnv); marker == helperVersion || marker != "" && marker == programMarker() {
		os.Exit(serveZygote())
	}
}

// zygoteServer is the zygote's side: restricted once by its plan, it
// starts each command in a Landlock domain nested in its own.
type zygoteServer struct {
	mu      sync.Mutex
	planned bool
	scoped  uint64    // the scopes each command's nested domain adds
	state   inherited // what commands inherit, as it was when restricted
	running sync.WaitGroup
}

// serveZygote answers the control socket until the parent closes it (or
// this zygote stops taking commands), then waits for its commands.
func serveZygote() int {
	// Nothing toolhost's process left open past fd 3 reaches a command.
	_ = unix.CloseRange(zygoteFD+1, ^uint(0), unix.CLOSE_RANGE_CLOEXEC)
	syscall.CloseOnExec(zygoteFD)
	s := &zygoteServer{}
	buf := make([]byte, 1)
	oob := make([]byte, unix.CmsgSpace(4*4))
	for {
		n, oobn, flags, _, err := unix.Recvmsg(zygoteFD, buf, oob, unix.MSG_CMSG_CLOEXEC)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil || n == 0 {
			break
		}
		files := receivedFiles(oob[:oobn])
		if flags&unix.MSG_CTRUNC != 0 || len(files) == 0 {
			closeAll(files)
			continue
		}
		switch {
		case buf[0] == zygotePlan && len(files) == 1:
			if !s.plan(files[0]) {
				return helperFailed
			}
		case buf[0] == zygoteRun && len(files) == 4:
			s.running.Add(1)
			go func() {
				defer s.running.Done()
				s.run(files[0], files[1:])
			}()
		default:
			closeAll(files)
		}
	}
	s.running.Wait()
	return 0
}

func receivedFiles(oob []byte) []*os.File {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return nil
	}
	var files []*os.File
	for _, m := range msgs {
		fds, err := unix.ParseUnixRights(&m)
		if err != nil {
			continue
		}
		for _, fd := range fds {
			files = append(files, os.NewFile(uintptr(fd), "sandbox-zygote-file"))
		}
	}
	return files
}

func closeAll(files []*os.File) {
	for _, f := range files {
		f.Close()
	}
}

func reply(w io.Writer, r zygoteReply) {
	b, _ := json.Marshal(r)
	_, _ = w.Write(append(b, '\n'))
}

// plan restricts the zygote by the plan read from conn, once. A zygote
// that could not restrict itself reports why and serves nothing.
func (s *zygoteServer) plan(conn *os.File) bool {
	defer conn.Close()
	s.mu.Lock()
	defer s.mu.Unlock()
	fail := func(err error) bool {
		reply(conn, zygoteReply{Err: err.Error()})
		return false
	}
	if s.planned {
		return fail(errors.New("the zygote has a plan already"))
	}
	b, err := io.ReadAll(io.LimitReader(conn, maxPlan))
	if err != nil {
		return fail(fmt.Errorf("read the plan: %w", err))
	}
	a, err := decodeHelperArgs(string(b))
	if err != nil {
		return fail(err)
	}
	if err := restrict(a); err != nil {
		return fail(err)
	}
	s.scoped = ll.ScopeSignal
	if !a.Network {
		s.scoped |= ll.ScopeAbstractUnixSocket
	}
	if s.state, err = currentInherited(); err != nil {
		return fail(err)
	}
	s.planned = true
	reply(conn, zygoteReply{})
	return true
}

// run starts one command and reports its process id, then its status.
func (s *zygoteServer) run(conn *os.File, stdio []*os.File) {
	defer conn.Close()
	defer closeAll(stdio) // the command holds its own copies: EOF comes when it is done
	var req runRequest
	if err := json.NewDecoder(bufio.NewReader(io.LimitReader(conn, maxRequest))).Decode(&req); err != nil {
		reply(conn, zygoteReply{Err: "read the command: " + err.Error()})
		return
	}
	s.mu.Lock()
	planned, scoped, state := s.planned, s.scoped, s.state
	s.mu.Unlock()
	if !planned {
		reply(conn, zygoteReply{Err: "the zygote has no plan"})
		return
	}
	// A process of the user's may have changed what commands inherit
	// (prlimit, setpriority): this zygote starts nothing more.
	if now, err := currentInherited(); err != nil || now != state {
		reply(conn, zygoteReply{Err: "the zygote's resource limits or priority changed", Retry: true})
		_ = syscall.Shutdown(zygoteFD, syscall.SHUT_RDWR)
		return
	}
	if req.Env == nil {
		req.Env = []string{} // never the zygote's own environment
	}
	cmd, err := startNested(req, stdio, scoped)
	if err != nil {
		reply(conn, zygoteReply{Err: fmt.Sprintf("start %s: %v", req.Path, err)})
		return
	}
	closeAll(stdio)
	reply(conn, zygoteReply{Pid: cmd.Process.Pid})
	_ = cmd.Wait()
	st := int(cmd.ProcessState.Sys().(syscall.WaitStatus))
	reply(conn, zygoteReply{Status: &st})
}

// startNested starts req from a thread that has entered a Landlock domain
// nested in the zygote's, adding scoped: the command may signal, trace
// and (network off) reach the abstract sockets of its own processes only
// — not the zygote's, nor an earlier command's. The thread is never
// unlocked, so it ends with its goroutine and no other goroutine runs in
// that domain; the Go runtime starts new threads from an unlocked one.
func startNested(req runRequest, stdio []*os.File, scoped uint64) (*exec.Cmd, error) {
	type started struct {
		cmd *exec.Cmd
		err error
	}
	ch := make(chan started, 1)
	go func() {
		runtime.LockOSThread()
		if err := nest(scoped); err != nil {
			ch <- started{err: err}
			return
		}
		cmd := &exec.Cmd{
			Path: req.Path, Args: req.Args, Env: req.Env, Dir: req.Dir,
			Stdin: stdio[0], Stdout: stdio[1], Stderr: stdio[2],
			SysProcAttr: &syscall.SysProcAttr{Setsid: true},
		}
		ch <- started{cmd, cmd.Start()}
	}()
	r := <-ch
	return r.cmd, r.err
}

// nest restricts the calling thread alone by a domain that adds scoped.
func nest(scoped uint64) error {
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	fd, err := ll.LandlockCreateRuleset(&ll.RulesetAttr{Scoped: scoped}, 0)
	if err != nil {
		return fmt.Errorf("nested Landlock ruleset: %w", err)
	}
	defer syscall.Close(fd)
	if err := ll.LandlockRestrictSelf(fd, 0); err != nil {
		return fmt.Errorf("nested Landlock domain: %w", err)
	}
	return nil
}

// inherited is what a command inherits from the zygote that another
// process of the user's could change: the resource limits and the nice
// value.
type inherited struct {
	limits [unix.RLIMIT_RTTIME + 1]unix.Rlimit
	nice   int
}

func currentInherited() (inherited, error) {
	var s inherited
	for r := range s.limits {
		if err := unix.Getrlimit(r, &s.limits[r]); err != nil {
			return s, fmt.Errorf("resource limit %d: %w", r, err)
		}
	}
	n, err := unix.Getpriority(unix.PRIO_PROCESS, 0)
	if err != nil {
		return s, fmt.Errorf("priority: %w", err)
	}
	s.nice = n
	return s, nil
}
