//go:build linux

package sandbox

import (
	"bufio"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// ZygoteArg is argv[1] of a zygote: a helper that restricts itself once
// and then starts every command of one plan (see doc.go).
const ZygoteArg = "__toolhost_sandbox_zygote__"

// zygoteFD is the zygote's control socket: each message is one byte
// (zygotePlan or zygoteRun) with file descriptors attached, the first of
// them a stream socket that carries the request and its answers.
const (
	zygoteFD    = 3
	zygotePlan  = 'P'
	zygoteRun   = 'R'
	maxZygotes  = 4
	maxRequest  = 16 << 20
	maxResponse = 64 << 10
)

// runRequest is what the zygote starts.
type runRequest struct {
	Path string
	Args []string
	Env  []string
	Dir  string
}

// zygoteReply is one line the zygote writes: the plan's or the start's
// outcome (Err, with Retry when this zygote must not be used again), the
// command's Pid, then its wait Status.
type zygoteReply struct {
	Err    string `json:",omitempty"`
	Retry  bool   `json:",omitempty"`
	Pid    int    `json:",omitempty"`
	Status *int   `json:",omitempty"`
}

// zygote is the parent's side of one zygote process.
type zygote struct {
	program bool   // the helper program, not this binary
	path    string // the program's
	proc    *os.Process
	ctrl    int           // the control socket; sends are serialised by mu
	mu      sync.Mutex    // guards ctrl's use and closed
	done    chan struct{} // closed once the process has exited
	closed  bool
}

var zygotes = struct {
	sync.Mutex
	m     map[[32]byte]*zygote
	spare *spareHelper // Prestart's, until taken
}{m: map[[32]byte]*zygote{}}

// zygoteFor returns the running zygote of the plan enc, starting one (or
// giving the spare the plan) when there is none.
func zygoteFor(enc string) (*zygote, error) {
	key := sha256.Sum256([]byte(enc))
	zygotes.Lock()
	defer zygotes.Unlock()
	if z := zygotes.m[key]; z != nil && z.alive() {
		return z, nil
	}
	delete(zygotes.m, key)
	z, err := startZygote()
	if err != nil {
		return nil, err
	}
	if err := z.setPlan(enc); err != nil {
		z.close()
		if !z.program || !errors.Is(err, errProgramMismatch) {
			return nil, err
		}
		// Another build's helper program: this binary, from now on.
		noteProgramMismatch(z.path)
		if z, err = startZygote(); err != nil {
			return nil, err
		}
		if err := z.setPlan(enc); err != nil {
			z.close()
			return nil, err
		}
	}
	if len(zygotes.m) >= maxZygotes {
		for k, old := range zygotes.m {
			old.close() // it ends once its running commands have
			delete(zygotes.m, k)
		}
	}
	zygotes.m[key] = z
	return z, nil
}

// zygoteExecutable is the program a zygote runs when the helper program
// is not used: this one (a test makes it one that is not a zygote).
var zygoteExecutable = os.Executable

// startWaiting starts the helper program of this build, or this binary
// re-executed, with arg, in a session of its own and in /, its end of a
// new socket pair of sockType as file descriptor 3 (zygoteFD). It
// returns the started command, the other end, and whether the program
// runs. what names the helper in errors.
func startWaiting(arg string, sockType int, what string) (*exec.Cmd, int, bool, error) {
	self, marker := helperProgram(), programMarker()
	if self == "" || programMismatched.Load() {
		var err error
		if self, err = zygoteExecutable(); err != nil {
			return nil, -1, false, fmt.Errorf("sandbox: find this program to re-execute: %w", err)
		}
		marker = helperVersion
	}
	fds, err := syscall.Socketpair(syscall.AF_UNIX, sockType|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, -1, false, &HelperError{Msg: what + " control socket: " + err.Error()}
	}
	child := os.NewFile(uintptr(fds[1]), "sandbox-"+what)
	defer child.Close()
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, HelperEnv+"=") })
	cmd := exec.Command(self, arg)
	cmd.Env = append(env, HelperEnv+"="+marker)
	cmd.Dir = "/"
	cmd.ExtraFiles = []*os.File{child} // zygoteFD
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		syscall.Close(fds[0])
		return nil, -1, false, &HelperError{Msg: "start the " + what + ": " + err.Error()}
	}
	return cmd, fds[0], marker != helperVersion, nil
}

// startZygote starts a zygote, in a session of its own (no controlling
// terminal) and in /: the helper program when there is one of this build
// (see helperProgram), this binary re-executed otherwise.
func startZygote() (*zygote, error) {
	cmd, ctrl, program, err := startWaiting(ZygoteArg, syscall.SOCK_SEQPACKET, "zygote")
	if err != nil {
		return nil, err
	}
	z := &zygote{program: program, path: cmd.Path, proc: cmd.Process, ctrl: ctrl, done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		close(z.done)
		z.close()
	}()
	return z, nil
}

func (z *zygote) alive() bool {
	select {
	case <-z.done:
		return false
	default:
	}
	z.mu.Lock()
	defer z.mu.Unlock()
	return !z.closed
}

// close ends the zygote's control socket: it starts nothing more and
// exits once its commands have.
func (z *zygote) close() {
	z.mu.Lock()
	defer z.mu.Unlock()
	if !z.closed {
		z.closed = true
		syscall.Close(z.ctrl)
	}
}

// request sends kind with a new connection and files, writes body on the
// connection and returns the connection for the answers.
func (z *zygote) request(kind byte, body []byte, files []*os.File) (*bufio.Reader, *os.File, error) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("request socket: %w", err)
	}
	conn := os.NewFile(uintptr(fds[0]), "sandbox-zygote-request")
	send := []int{fds[1]}
	for _, f := range files {
		send = append(send, int(f.Fd()))
	}
	z.mu.Lock()
	if z.closed {
		err = errors.New("the zygote is closed")
	} else {
		err = unix.Sendmsg(z.ctrl, []byte{kind}, unix.UnixRights(send...), nil, unix.MSG_NOSIGNAL)
	}
	z.mu.Unlock()
	syscall.Close(fds[1])
	if err != nil {
		conn.Close()
		return nil, nil, err
	}
	// The zygote reads the body while it is written: it may be large.
	go func() {
		_, _ = conn.Write(body) // fails only when the zygote is gone, which the reader sees
		if rc, err := conn.SyscallConn(); err == nil {
			// Control holds the descriptor: never a closed and reused one.
			_ = rc.Control(func(fd uintptr) { _ = syscall.Shutdown(int(fd), syscall.SHUT_WR) })
		}
	}()
	return bufio.NewReader(io.LimitReader(conn, maxResponse)), conn, nil
}

func readReply(r *bufio.Reader) (zygoteReply, error) {
	var rep zygoteReply
	line, err := r.ReadBytes('\n')
	if err != nil {
		return rep, err
	}
	return rep, json.Unmarshal(line, &rep)
}

// setPlan gives the zygote its plan and waits until it has restricted
// itself by it.
func (z *zygote) setPlan(enc string) error {
	r, conn, err := z.request(zygotePlan, []byte(enc), nil)
	if err != nil && z.program {
		return errProgramMismatch // ended already: see below
	}
	if err != nil {
		return &HelperError{Msg: "send the zygote its plan: " + err.Error()}
	}
	defer conn.Close()
	rep, err := readReply(r)
	switch {
	case err != nil && z.program:
		// The helper program ends without an answer when it is another
		// build's (helperMain).
		return errProgramMismatch
	case err != nil:
		return &HelperError{Msg: "the zygote ended before confining itself: " + err.Error()}
	case rep.Err != "":
		return &HelperError{Msg: rep.Err}
	}
	return nil
}

// run asks the zygote to start req with files as its standard files.
// retry reports an error after which a fresh zygote may start it.
func (z *zygote) run(req runRequest, files []*os.File) (proc *Process, retry bool, err error) {
	body, err := json.Marshal(req)
	if err != nil {
		return nil, false, err
	}
	r, conn, err := z.request(zygoteRun, body, files)
	if err != nil {
		z.close()
		return nil, true, &HelperError{Msg: "send the zygote a command: " + err.Error()}
	}
	rep, err := readReply(r)
	if err != nil || rep.Retry || rep.Err != "" || rep.Pid <= 0 {
		conn.Close()
		if err != nil || rep.Retry {
			z.close()
			if err != nil {
				rep.Err = "the zygote ended: " + err.Error()
			}
			return nil, true, &HelperError{Msg: rep.Err}
		}
		if rep.Err == "" {
			rep.Err = fmt.Sprintf("the zygote reported process id %d", rep.Pid)
		}
		return nil, false, &HelperError{Msg: rep.Err}
	}
	pid := rep.Pid
	return &Process{Pid: pid, wait: func() (int, string, error) {
		defer conn.Close()
		rep, err := readReply(r)
		if err != nil || rep.Status == nil {
			// The command's parent is gone: end what is left of it.
			_ = syscall.Kill(-pid, syscall.SIGKILL)
			return -1, "", &HelperError{Msg: fmt.Sprintf("the zygote ended before reporting the exit status of process %d (%v)", pid, err)}
		}
		ws := syscall.WaitStatus(*rep.Status)
		if ws.Signaled() {
			return -1, signalOf(ws), nil
		}
		return ws.ExitStatus(), "", nil
	}}, false, nil
}
