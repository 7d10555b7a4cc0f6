//go:build linux

package stdio

import (
	"errors"
	"io"
	"os"
	goruntime "runtime"
	"sync/atomic"
	"testing"
	"time"
)

// readResult is one Read of a pollInput, done on another goroutine.
type readResult struct {
	s   string
	err error
}

func readOnce(in io.Reader) <-chan readResult {
	ch := make(chan readResult, 1)
	go func() {
		b := make([]byte, 64)
		n, err := in.Read(b)
		ch <- readResult{string(b[:n]), err}
	}()
	return ch
}

func await(t *testing.T, ch <-chan readResult) readResult {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(30 * time.Second):
		t.Fatal("a Read did not return")
		return readResult{}
	}
}

// TestStdinIsReadWithPollAndStopsOnCloseAndDeadline: the stdio server's
// stdin (a pipe) is read by poll(2); a Read waiting there returns what is
// written, ends at the end of input, and is ended by Close and by a
// deadline in the past — never left waiting.
func TestStdinIsReadWithPollAndStopsOnCloseAndDeadline(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	// With one processor the runtime's poller is always used.
	defer goruntime.GOMAXPROCS(goruntime.GOMAXPROCS(2))
	in, ok := StdinInput(r).(*pollInput)
	if !ok {
		t.Fatalf("a pipe is not read with poll(2): %T", StdinInput(r))
	}

	pending := readOnce(in)
	w.Write([]byte("line one\n"))
	if got := await(t, pending); got.err != nil || got.s != "line one\n" {
		t.Fatalf("read %+v", got)
	}

	// A deadline in the past ends a waiting Read; clearing it lets the
	// next one read.
	pending = readOnce(in)
	time.Sleep(10 * time.Millisecond) // let it reach poll(2); the test holds either way
	in.SetReadDeadline(time.Now().Add(-time.Second))
	if got := await(t, pending); !errors.Is(got.err, os.ErrDeadlineExceeded) {
		t.Fatalf("after a past deadline: %+v", got)
	}
	in.SetReadDeadline(time.Time{})
	w.Write([]byte("two"))
	if got := await(t, readOnce(in)); got.err != nil || got.s != "two" {
		t.Fatalf("after clearing the deadline: %+v", got)
	}

	// Close ends a waiting Read; later Reads report the close.
	pending = readOnce(in)
	time.Sleep(10 * time.Millisecond)
	if err := in.Close(); err != nil {
		t.Fatal(err)
	}
	if got := await(t, pending); !errors.Is(got.err, os.ErrClosed) {
		t.Fatalf("after Close: %+v", got)
	}
	if got := await(t, readOnce(in)); !errors.Is(got.err, os.ErrClosed) {
		t.Fatalf("a Read after Close: %+v", got)
	}
	if err := in.Close(); err != nil {
		t.Errorf("a second Close: %v", err)
	}
}

func TestStdinEndsAtTheEndOfInput(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	in := StdinInput(r)
	defer in.Close()
	w.Write([]byte("last"))
	w.Close()
	b, err := io.ReadAll(in)
	if err != nil || string(b) != "last" {
		t.Fatalf("read %q, %v", b, err)
	}
}

// With one processor the runtime's poller waits for stdin.
func TestStdinOnOneProcessorIsOnThePoller(t *testing.T) {
	defer goruntime.GOMAXPROCS(goruntime.GOMAXPROCS(1))
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	in := StdinInput(r)
	defer in.Close()
	if _, ok := in.(*pollInput); ok {
		t.Fatal("read with poll(2) on one processor")
	}
	if _, ok := in.(interface{ SetReadDeadline(time.Time) error }); !ok {
		t.Fatalf("%T has no deadline: a Read could not be ended", in)
	}
}

// A terminal or a regular file is read as it is.
func TestStdinThatIsNotAPipeIsReadAsItIs(t *testing.T) {
	f, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if in := StdinInput(f); in != io.ReadCloser(f) {
		t.Fatalf("%T", in)
	}
}

// TestStdinWithCallsInFlightIsOnThePoller: while calls are in flight the
// input waits on the runtime's poller (a File of its own, made when first
// needed and dropped after idleReads Reads without calls), and Close and
// deadlines end those waits too.
func TestStdinWithCallsInFlightIsOnThePoller(t *testing.T) {
	defer goruntime.GOMAXPROCS(goruntime.GOMAXPROCS(2))
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	in, ok := StdinInput(r).(*pollInput)
	if !ok {
		t.Fatalf("%T", StdinInput(r))
	}
	var busy atomic.Bool
	in.setBusy(busy.Load)

	busy.Store(true)
	pending := readOnce(in)
	w.Write([]byte("in flight"))
	if got := await(t, pending); got.err != nil || got.s != "in flight" {
		t.Fatalf("read %+v", got)
	}
	if in.poller.Load() == nil {
		t.Fatal("no File on the poller while calls are in flight")
	}
	pending = readOnce(in)
	time.Sleep(10 * time.Millisecond)
	in.SetReadDeadline(time.Now().Add(-time.Second))
	if got := await(t, pending); !errors.Is(got.err, os.ErrDeadlineExceeded) {
		t.Fatalf("after a past deadline: %+v", got)
	}
	in.SetReadDeadline(time.Time{})

	// Idle again: poll(2), and the poller's File goes after idleReads.
	busy.Store(false)
	for i := range idleReads {
		w.Write([]byte("x"))
		if got := await(t, readOnce(in)); got.err != nil || got.s != "x" {
			t.Fatalf("idle read %d: %+v", i, got)
		}
	}
	if in.poller.Load() != nil {
		t.Fatalf("the poller's File is kept after %d idle reads", idleReads)
	}

	// Close ends a Read waiting on the poller.
	busy.Store(true)
	pending = readOnce(in)
	time.Sleep(10 * time.Millisecond)
	in.Close()
	if got := await(t, pending); !errors.Is(got.err, os.ErrClosed) {
		t.Fatalf("after Close: %+v", got)
	}
}
