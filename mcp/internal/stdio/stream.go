package stdio

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	segjson "github.com/segmentio/encoding/json"
	"github.com/toolhost/toolhost/internal/third_party/gosdk/jsonrpc"
	sdk "github.com/toolhost/toolhost/internal/third_party/gosdk/mcp"
)

// streamConn is the stdio connection: newline-delimited JSON-RPC over a
// byte stream, as the MCP specification's stdio transport defines it (a
// message per line, no newline inside one).
//
// It replaces the SDK's IOTransport connection, which decodes every
// message three times over: a json.Decoder finds where the value ends, a
// failed attempt reads it as a batch array, and only then is it decoded as
// a message — a third of the server's CPU per call once results were
// spliced (BENCHMARKS.md, "MCP"). Here a message is a line, found with
// one byte search, and decoded once. Everything the SDK's connection does
// besides is kept: batches (JSON-RPC arrays, accepted until a protocol
// version that removed them, 2025-06-18, is negotiated, and answered with
// one array), a frame size limit, and a Read that Close unblocks.
//
// The one difference: the SDK's decoder also accepts a message spread
// over several lines; the specification forbids that, and the TypeScript
// and Python SDKs split on newlines as this does.
type streamConn struct {
	rc io.Closer // the input, closed by Close to end the reader
	w  io.Writer // the output: a Splicer over stdout

	incoming chan lineOrErr
	closed   chan struct{}
	closeErr error
	once     sync.Once

	queue []jsonrpc.Message // the rest of a batch; Reads are serialised

	direct   *bufio.Reader // an input a deadline interrupts, read by Read itself; nil: by readLines
	deadline deadliner     // direct's file, whose deadline ends a Read

	writeMu sync.Mutex
	out     []byte // a response's encoding, reused under writeMu

	// inFlight counts the calls read and not yet answered; the input waits
	// differently while there are some (pollinput_linux.go).
	inFlight atomic.Int64

	mu      sync.Mutex
	initID  jsonrpc.ID // the initialize request's id, to read the version from its response
	version string     // the negotiated protocol version, "" before initialize
	batches map[jsonrpc.ID]*inBatch
}

// inBatch is a batch of requests whose responses are collected until the
// last one, then written as one array.
type inBatch struct {
	index     map[jsonrpc.ID]int
	responses []*jsonrpc.Response
	left      int
}

type lineOrErr struct {
	line []byte
	err  error
}

// maxLine bounds one message, as the SDK's DefaultMaxLineLength does.
const maxLine = sdk.DefaultMaxLineLength

// MaxBatch bounds the messages of one JSON-RPC batch: every request of a
// batch is held, and its response kept, until the last is answered, so a
// line of a few hundred thousand tiny requests would hold them all. The
// SDK set no bound; clients that batch (before 2025-06-18) send a few.
const MaxBatch = 1000

// batchesRemoved is the first protocol version without JSON-RPC batches.
const batchesRemoved = "2025-06-18"

var errFrameTooLarge = fmt.Errorf("an MCP message is longer than %d bytes; send messages of at most that size, one per line", maxLine)

// Transport is the stdio transport over In and Out: an sdk.Transport
// whose Connect returns this package's connection. Out is usually a
// Splicer over the process's stdout; In, StdinInput(os.Stdin).
type Transport struct {
	In  io.ReadCloser
	Out io.Writer
}

// Connect implements sdk.Transport.
func (t *Transport) Connect(context.Context) (sdk.Connection, error) {
	return newStreamConn(t.In, t.Out), nil
}

// deadliner is an input whose blocked Read a deadline or Close ends: a
// pipe on the runtime's poller, or stdin as ServeStdio reads it
// (StdinInput).
type deadliner interface {
	SetReadDeadline(time.Time) error
}

func newStreamConn(r io.ReadCloser, w io.Writer) *streamConn {
	// incoming holds one line read ahead.
	c := &streamConn{rc: r, w: w, incoming: make(chan lineOrErr, 1), closed: make(chan struct{})}
	br := bufio.NewReaderSize(r, 64<<10)
	if b, ok := r.(interface{ setBusy(func() bool) }); ok {
		b.setBusy(func() bool { return c.inFlight.Load() > 0 })
	}
	if d, ok := r.(deadliner); ok && d.SetReadDeadline(time.Time{}) == nil {
		// Read reads the pipe itself: a goroutine less to hand each
		// message through, and a thread less to wake.
		c.direct, c.deadline = br, d
		return c
	}
	// Other inputs (an io.Pipe, a terminal) may block in a way Close does
	// not end, so lines are read on a goroutine of their own and Read
	// selects on them and on Close, as the SDK's connection does.
	go c.readLines(br)
	return c
}

// nextLine returns the next line that is not blank, without its line
// ending; a last line without a newline is a line, and io.EOF comes after.
func nextLine(br *bufio.Reader) ([]byte, error) {
	for {
		line, err := readLine(br)
		if len(line) == 0 && err == nil {
			continue
		}
		if len(line) > 0 && errors.Is(err, io.EOF) {
			err = nil
		}
		return line, err
	}
}

func (c *streamConn) readLines(br *bufio.Reader) {
	for {
		line, err := nextLine(br)
		select {
		case c.incoming <- lineOrErr{line, err}:
		case <-c.closed:
			return
		}
		if err != nil {
			return
		}
	}
}

// readLine returns the next line without its line ending, copied.
func readLine(br *bufio.Reader) ([]byte, error) {
	var long []byte
	for {
		part, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			if len(long)+len(part) > maxLine {
				return nil, errFrameTooLarge
			}
			long = append(long, part...)
			continue
		}
		if len(long)+len(part) > maxLine+2 { // the limit counts the message, not its line ending
			return nil, errFrameTooLarge
		}
		line := append(long, part...)
		if long == nil {
			line = bytes.Clone(part)
		}
		return bytes.TrimSpace(line), err
	}
}

// Read returns the next message.
func (c *streamConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(c.queue) > 0 {
		msg := c.queue[0]
		c.queue = c.queue[1:]
		return c.counted(msg), nil
	}
	var v lineOrErr
	if c.direct != nil {
		v = c.readDirect(ctx)
	} else {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case v = <-c.incoming:
		case <-c.closed:
			return nil, io.EOF
		}
	}
	if v.err != nil {
		return nil, v.err
	}
	if v.line[0] == '[' {
		msgs, err := c.readBatch(v.line)
		if err != nil {
			return nil, err
		}
		c.queue = msgs[1:]
		return c.counted(msgs[0]), nil
	}
	// Decoding first bounds the nesting (the SDK refuses past 1000 levels
	// before it parses); only then is the line checked to hold nothing
	// after the message, by a parser that recurses and would exhaust the
	// stack on a line of millions of brackets. The SDK's decoder reads the
	// first JSON value of its input and ignores the rest; a line must be
	// one value and nothing else.
	msg, err := jsonrpc.DecodeMessage(v.line)
	if err != nil {
		return nil, err
	}
	if !segjson.Valid(v.line) {
		return nil, fmt.Errorf("a line is not one JSON-RPC message: %.80q; send one JSON object per line", v.line)
	}
	if req, ok := msg.(*jsonrpc.Request); ok && req.Method == "initialize" && req.IsCall() {
		c.mu.Lock()
		c.initID = req.ID
		c.mu.Unlock()
	}
	return c.counted(msg), nil
}

// counted returns msg, counting it in flight when it is a call: its
// response, written by Write, ends it.
func (c *streamConn) counted(msg jsonrpc.Message) jsonrpc.Message {
	if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
		c.inFlight.Add(1)
	}
	return msg
}

// readDirect reads the next line from a pollable input, ending the wait
// when ctx ends (a deadline in the past) or the connection is closed.
func (c *streamConn) readDirect(ctx context.Context) lineOrErr {
	select {
	case <-c.closed:
		return lineOrErr{err: io.EOF}
	default:
	}
	stop := context.AfterFunc(ctx, func() { c.deadline.SetReadDeadline(time.Now()) })
	line, err := nextLine(c.direct)
	stop()
	switch {
	case ctx.Err() != nil:
		return lineOrErr{err: ctx.Err()}
	case err != nil && errors.Is(err, os.ErrClosed):
		return lineOrErr{err: io.EOF}
	}
	return lineOrErr{line, err}
}

// readBatch decodes a JSON-RPC batch and records its requests, whose
// responses Write will collect.
func (c *streamConn) readBatch(line []byte) ([]jsonrpc.Message, error) {
	c.mu.Lock()
	version := c.version
	c.mu.Unlock()
	if version >= batchesRemoved {
		return nil, fmt.Errorf("JSON-RPC batching is not supported in %s and later (this session uses %s)", batchesRemoved, version)
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(line, &raws); err != nil {
		return nil, fmt.Errorf("decode JSON-RPC batch: %w", err)
	}
	if len(raws) == 0 {
		return nil, errors.New("empty JSON-RPC batch")
	}
	if len(raws) > MaxBatch {
		return nil, fmt.Errorf("a JSON-RPC batch of %d messages is over the limit of %d; send fewer at a time", len(raws), MaxBatch)
	}
	msgs := make([]jsonrpc.Message, 0, len(raws))
	b := &inBatch{index: map[jsonrpc.ID]int{}}
	for _, raw := range raws {
		msg, err := jsonrpc.DecodeMessage(raw)
		if err != nil {
			return nil, err
		}
		if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
			if _, dup := b.index[req.ID]; dup {
				return nil, fmt.Errorf("JSON-RPC batch holds request id %v twice", req.ID.Raw())
			}
			b.index[req.ID] = len(b.responses)
			b.responses = append(b.responses, nil)
		}
		msgs = append(msgs, msg)
	}
	if b.left = len(b.responses); b.left > 0 {
		c.mu.Lock()
		defer c.mu.Unlock()
		for id := range b.index {
			if _, ok := c.batches[id]; ok {
				return nil, fmt.Errorf("JSON-RPC batch reuses request id %v of an unanswered batch", id.Raw())
			}
		}
		if c.batches == nil {
			c.batches = map[jsonrpc.ID]*inBatch{}
		}
		for id := range b.index {
			c.batches[id] = b
		}
	}
	return msgs, nil
}

// Write writes one message, or completes a batch.
func (c *streamConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	if resp, ok := msg.(*jsonrpc.Response); ok {
		if c.inFlight.Add(-1) < 0 {
			c.inFlight.Store(0) // a response to nothing read: not ours to count
		}
		c.noteVersion(resp)
		if done, inBatch := c.answerBatch(resp); inBatch {
			if done == nil {
				return nil
			}
			raws := make([]json.RawMessage, len(done))
			for i, r := range done {
				raw, err := jsonrpc.EncodeMessage(r)
				if err != nil {
					return fmt.Errorf("encode JSON-RPC batch response: %w", err)
				}
				raws[i] = raw
			}
			data, err := json.Marshal(raws)
			if err != nil {
				return fmt.Errorf("encode JSON-RPC batch response: %w", err)
			}
			_, err = c.w.Write(append(data, '\n'))
			return err
		}
	}
	if resp, ok := msg.(*jsonrpc.Response); ok {
		if data, ok := AppendResult(c.out[:0], resp); ok {
			data = append(data, '\n')
			if cap(data) <= 1<<20 {
				c.out = data[:0] // kept for the next response, up to 1 MiB
			}
			_, err := c.w.Write(data)
			return err
		}
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encode JSON-RPC message: %w", err)
	}
	_, err = c.w.Write(append(data, '\n'))
	return err
}

// AppendResult appends a successful response as jsonrpc.EncodeMessage
// writes it — {"jsonrpc":"2.0","id":…,"result":…} — or reports false for
// any other response, which EncodeMessage encodes. The result is the SDK's
// encoding already, compact; EncodeMessage would scan it again to compact
// it, at tens of instructions a byte. A result with a line break (not
// compact, which the SDK never writes) is left to EncodeMessage too, so a
// message stays one line.
func AppendResult(dst []byte, resp *jsonrpc.Response) ([]byte, bool) {
	if resp.Error != nil || len(resp.Result) == 0 || bytes.IndexByte(resp.Result, '\n') >= 0 {
		return nil, false
	}
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	switch id := resp.ID.Raw().(type) {
	case int64:
		dst = strconv.AppendInt(dst, id, 10)
	case string:
		dst = AppendJSONString(dst, id)
	default:
		return nil, false
	}
	dst = append(dst, `,"result":`...)
	dst = append(dst, resp.Result...)
	return append(dst, '}'), true
}

// noteVersion records the protocol version of the initialize response.
func (c *streamConn) noteVersion(resp *jsonrpc.Response) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.initID.IsValid() || resp.ID != c.initID || resp.Error != nil {
		return
	}
	var r struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if json.Unmarshal(resp.Result, &r) == nil {
		c.version = r.ProtocolVersion
	}
	c.initID = jsonrpc.ID{}
}

// answerBatch files a response to a batched request: inBatch reports
// whether it was one, done holds the batch's responses once it is whole.
func (c *streamConn) answerBatch(resp *jsonrpc.Response) (done []*jsonrpc.Response, inBatch bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	b, ok := c.batches[resp.ID]
	if !ok {
		return nil, false
	}
	delete(c.batches, resp.ID)
	b.responses[b.index[resp.ID]] = resp
	if b.left--; b.left > 0 {
		return nil, true
	}
	return b.responses, true
}

// Close closes the input, which ends the reader; the output is the
// process's and stays open.
func (c *streamConn) Close() error {
	c.once.Do(func() {
		c.closeErr = c.rc.Close()
		close(c.closed)
	})
	return c.closeErr
}

// SessionID is "": a stream is one session without an id.
func (c *streamConn) SessionID() string { return "" }
