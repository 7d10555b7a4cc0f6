package python

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"time"

	"github.com/tetratelabs/wazero/api"

	"github.com/toolhost/toolhost/hostfns"
)

// The protocol between the host and guest/_main.py. The guest writes one
// JSON object a line on fd 1:
//
//	{"op":"ready"}                              the tool loaded; waiting for its call
//	{"op":"describe","value":[Def...]}          describe mode's answer
//	{"op":"load_error","message":…,"line":n}    the file did not load (line 0: unknown)
//	{"op":"result","value":{output,title,metadata}}
//	{"op":"error","message":…[,"kind":"memory"]} the tool raised
//	{"op":"ask"|"metadata"|"fetch"|"log","arg":{…}} a request; the guest waits for the reply
//
// The host writes one line on fd 0: first the call
// {"fn":…,"ctx":…,"args":{…},"info":{…}}, then one reply per request,
// {"value":…} or {"error":"…"}.
type message struct {
	Op      string          `json:"op"`
	Arg     json.RawMessage `json:"arg"`
	Value   json.RawMessage `json:"value"`
	Message string          `json:"message"`
	Kind    string          `json:"kind"`
	Line    int             `json:"line"`
}

// maxLine bounds one protocol line (a result holds the tool's output).
const maxLine = 64 << 20

// maxStderr is how much of the guest's fd 2 is kept for messages.
const maxStderr = 64 << 10

var (
	errLoadTimeout = errors.New("load time limit reached")
	errDeadline    = errors.New("time limit reached")
	errProtocol    = errors.New("the guest broke the protocol")
)

// instance is one running python.wasm: its streams, and why it stopped.
type instance struct {
	ctx    context.Context
	stop   context.CancelCauseFunc
	memMB  int
	mod    api.Module
	mounts hostfns.Mounts // its allowed_paths
	msgs   chan message
	stdin  *feed
	stdout *lines
	stderr *tail
	done   chan struct{}
	err    error // _start's error, once done is closed

	mu    sync.Mutex
	timer *time.Timer
}

func newInstance(ctx context.Context, memMB int) *instance {
	ictx, stop := context.WithCancelCause(context.WithoutCancel(ctx))
	in := &instance{ctx: ictx, stop: stop, memMB: memMB, msgs: make(chan message, 4), done: make(chan struct{}), stderr: &tail{}}
	in.stdin = &feed{ch: make(chan []byte, 1), ctx: ictx}
	in.stdout = &lines{in: in}
	return in
}

// cancel stops the instance; cause says why (nil: closed by the host).
func (in *instance) cancel(cause error) {
	if cause == nil {
		cause = context.Canceled
	}
	in.stop(cause)
}

// limit stops the instance with cause after d (0: never), replacing the
// previous limit.
func (in *instance) limit(d time.Duration, cause error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.timer != nil {
		in.timer.Stop()
		in.timer = nil
	}
	if d > 0 {
		in.timer = time.AfterFunc(d, func() { in.cancel(cause) })
	}
}

func (in *instance) finish(err error) {
	in.limit(0, nil)
	in.err = err
	close(in.done)
}

// send writes one line to the guest's fd 0.
func (in *instance) send(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	select {
	case in.stdin.ch <- append(b, '\n'):
		return nil
	case <-in.ctx.Done():
		return context.Cause(in.ctx)
	}
}

// next returns the guest's next message, or an error when it ended
// without one.
func (in *instance) next() (message, error) {
	select {
	case m := <-in.msgs:
		return m, nil
	case <-in.done:
		select { // a message written just before the end
		case m := <-in.msgs:
			return m, nil
		default:
		}
		if c := context.Cause(in.ctx); c != nil {
			return message{}, c
		}
		if in.err == nil {
			return message{}, io.ErrUnexpectedEOF
		}
		return message{}, in.err
	}
}

// feed is the guest's fd 0: lines the host sends, read as they come. A
// read blocks until one is sent or the instance stops.
type feed struct {
	ch  chan []byte
	cur []byte
	ctx context.Context
}

func (f *feed) Read(p []byte) (int, error) {
	for len(f.cur) == 0 {
		select {
		case b := <-f.ch:
			f.cur = b
		case <-f.ctx.Done():
			return 0, io.EOF
		}
	}
	n := copy(p, f.cur)
	f.cur = f.cur[n:]
	return n, nil
}

// lines is the guest's fd 1: it splits the protocol lines and queues them.
type lines struct {
	in  *instance
	buf []byte
}

func (l *lines) Write(p []byte) (int, error) {
	l.buf = append(l.buf, p...)
	for {
		i := bytes.IndexByte(l.buf, '\n')
		if i < 0 {
			break
		}
		var m message
		if err := json.Unmarshal(l.buf[:i], &m); err != nil || m.Op == "" {
			l.in.cancel(errProtocol)
			return 0, errProtocol
		}
		l.buf = l.buf[i+1:]
		select {
		case l.in.msgs <- m:
		case <-l.in.ctx.Done():
			return 0, io.ErrClosedPipe
		}
	}
	if len(l.buf) > maxLine {
		l.in.cancel(errProtocol)
		return 0, errProtocol
	}
	return len(p), nil
}

// tail keeps the last maxStderr bytes of the guest's fd 2.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > maxStderr {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-maxStderr:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
