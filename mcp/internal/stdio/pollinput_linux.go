//go:build linux

package stdio

import (
	"io"
	"os"
	goruntime "runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// StdinInput returns how the stdio server reads f, the process's stdin.
// A pipe or a socket (an MCP client's stdin always is) is set
// non-blocking and read by the goroutine that reads the connection itself:
// through the runtime's poller while calls are in flight, and waiting in
// poll(2) while none is. Other files (a terminal, a regular file) are
// returned as they are.
//
// Why poll(2) between calls: a goroutine parked on the runtime's poller
// leaves every processor idle, so the runtime's monitor thread (sysmon)
// goes to deep sleep, and the next call's first system call wakes it
// again, after which it polls every 20 µs until the call is done — a
// fifth of the server's CPU per call (BENCHMARKS.md, "MCP"). A thread
// waiting in a system call keeps its processor for up to 10 ms, so while
// a client sends call after call, sysmon stays awake at its slow pace.
// While calls are in flight the poller is used as before: a processor
// held in poll(2) is lent to other goroutines only when sysmon next looks,
// which would slow calls running side by side; with one processor
// (GOMAXPROCS=1) it is always used.
func StdinInput(f *os.File) io.ReadCloser {
	if !isPipeOrSocket(f) {
		return f
	}
	// The descriptor is read through a duplicate made non-blocking (the
	// flag is the open file's, so f's is too; nothing else reads it),
	// held by a File of its own that is not on the runtime's poller: a
	// descriptor on the poller wakes the poller's thread at every line the
	// client writes, whoever waits for it.
	fd, ok := dupFD(f)
	if !ok {
		return f
	}
	// Made before the descriptor is non-blocking, so the File stays off
	// the poller.
	own := os.NewFile(uintptr(fd), f.Name())
	if err := unix.SetNonblock(fd, true); err != nil {
		own.Close()
		return f
	}
	if goruntime.GOMAXPROCS(0) < 2 {
		own.Close()
		return pollerFile(f)
	}
	rc, err := own.SyscallConn()
	if err != nil {
		own.Close()
		return pollerFile(f)
	}
	var wake [2]int
	if err := unix.Pipe2(wake[:], unix.O_CLOEXEC|unix.O_NONBLOCK); err != nil {
		own.Close()
		return pollerFile(f)
	}
	return &pollInput{f: own, rc: rc, wake: wake}
}

// pollerFile returns a File on the runtime's poller reading what f reads
// (a duplicate of its descriptor, non-blocking), or f when that fails.
func pollerFile(f *os.File) *os.File {
	fd, ok := dupFD(f)
	if !ok {
		return f
	}
	// Made after, so the File registers with the poller.
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return f
	}
	return os.NewFile(uintptr(fd), f.Name())
}

// dupFD duplicates f's descriptor (close-on-exec); false when it cannot.
func dupFD(f *os.File) (int, bool) {
	rc, err := f.SyscallConn()
	if err != nil {
		return 0, false
	}
	fd, dupErr := -1, error(nil)
	if err := rc.Control(func(sysfd uintptr) {
		fd, dupErr = unix.FcntlInt(sysfd, unix.F_DUPFD_CLOEXEC, 0)
	}); err != nil || dupErr != nil {
		return 0, false
	}
	return fd, true
}

// idleReads is how many Reads without calls in flight the poller's File is
// kept for: a client that keeps a call or two in flight does not make it
// come and go.
const idleReads = 64

// pollInput is a non-blocking descriptor read with poll(2), which Close
// and a deadline in the past interrupt through the wake pipe.
type pollInput struct {
	f    *os.File // off the runtime's poller
	rc   syscall.RawConn
	wake [2]int

	// poller reads f's descriptor on the runtime's poller while calls are
	// in flight; made by Read when first needed, closed after idleReads
	// Reads without calls in flight (Reads are serialised); Close and
	// SetReadDeadline reach it too, hence the atomic.
	poller atomic.Pointer[os.File]
	idle   int

	// busy, set by the stream connection, reports calls in flight: Read
	// then waits on the runtime's poller. Nil: never.
	busy func() bool

	closed  atomic.Bool
	expired atomic.Bool // a deadline in the past was set
	once    sync.Once
}

func (p *pollInput) Read(b []byte) (n int, err error) {
	if len(b) == 0 {
		return 0, nil
	}
	// With calls in flight, or down to one processor since the start
	// (GOMAXPROCS follows the CPU quota), wait on the runtime's poller.
	if (p.busy != nil && p.busy()) || goruntime.GOMAXPROCS(0) < 2 {
		if p.expired.Load() {
			return 0, os.ErrDeadlineExceeded
		}
		pf := p.poller.Load()
		if pf == nil {
			if pf = pollerFile(p.f); pf != p.f {
				p.poller.Store(pf)
				if p.closed.Load() { // Close ran before the Store saw it
					pf.Close()
					return 0, os.ErrClosed
				}
			} else {
				pf = nil // no duplicate: wait in poll(2) after all
			}
		}
		if pf != nil {
			p.idle = 0
			return pf.Read(b)
		}
	} else if pf := p.poller.Load(); pf != nil {
		if p.idle++; p.idle >= idleReads {
			p.poller.Store(nil)
			pf.Close()
		}
	}
	// Control holds the descriptor open while it runs: Close marks the
	// file closing, wakes the poll, and the descriptor is released (and
	// its number free for reuse) only when this returns.
	cerr := p.rc.Control(func(fd uintptr) { n, err = p.read(int(fd), b) })
	if cerr != nil {
		return 0, os.ErrClosed
	}
	return n, err
}

func (p *pollInput) read(fd int, b []byte) (int, error) {
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}, {Fd: int32(p.wake[0]), Events: unix.POLLIN}}
	for {
		if p.closed.Load() {
			return 0, os.ErrClosed
		}
		if p.expired.Load() {
			return 0, os.ErrDeadlineExceeded
		}
		fds[0].Revents, fds[1].Revents = 0, 0
		if _, err := unix.Poll(fds, -1); err != nil {
			if err == unix.EINTR {
				continue
			}
			return 0, &os.PathError{Op: "poll", Path: p.f.Name(), Err: err}
		}
		if fds[1].Revents != 0 {
			var buf [64]byte
			for {
				if _, err := unix.Read(p.wake[0], buf[:]); err != nil {
					break
				}
			}
			continue // closed or expired: the loop says which
		}
		n, err := unix.Read(fd, b)
		switch {
		case err == unix.EINTR || err == unix.EAGAIN:
			continue
		case err != nil:
			return 0, &os.PathError{Op: "read", Path: p.f.Name(), Err: err}
		case n == 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

// SetReadDeadline supports what the stream connection uses: a time in the
// past ends a Read (a cancelled context), the zero time clears that.
func (p *pollInput) SetReadDeadline(t time.Time) error {
	p.expired.Store(!t.IsZero() && !t.After(time.Now()))
	if p.expired.Load() {
		p.poke()
	}
	if pf := p.poller.Load(); pf != nil {
		pf.SetReadDeadline(t)
	}
	return nil
}

func (p *pollInput) setBusy(busy func() bool) { p.busy = busy }

func (p *pollInput) poke() { unix.Write(p.wake[1], []byte{1}) }

// Close ends a Read waiting in poll(2) and closes the input.
func (p *pollInput) Close() error {
	var err error
	p.once.Do(func() {
		p.closed.Store(true)
		p.poke()
		if pf := p.poller.Load(); pf != nil {
			pf.Close()
		}
		err = p.f.Close()
		// The wake pipe stays open: a Read may be about to poll it. It is
		// two descriptors per served stdin, once per process.
	})
	return err
}
