package lsp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/config"
)

// maxMessage bounds one message from a server: a broken server must not
// make toolhost allocate without limit.
const maxMessage = 64 << 20

// Bounds on what one publication keeps: diagnostics per file and bytes
// per message (cut with "…"). The edit tools show 20 errors a file; the
// rest feeds clients' displays, which need no more.
const (
	maxFileDiagnostics   = 1000
	maxDiagnosticMessage = 2000
	// maxPublishedFiles bounds the files whose diagnostics are kept,
	// besides those sent to the server: a server publishing for ever new
	// files must not grow toolhost without limit.
	maxPublishedFiles = 10000
)

// client is a minimal JSON-RPC 2.0 client over a server's stdio, with
// LSP's Content-Length framing. It answers the requests servers make of
// their client (configuration, capability registration, progress) so that
// every common server proceeds, and keeps the diagnostics it publishes.
type client struct {
	name   string
	cmd    *exec.Cmd
	stdin  *os.File // a pipe, so writes can have a deadline
	stderr *tailBuffer
	init   map[string]any // the config's initialization options

	wmu    sync.Mutex
	mu     sync.Mutex
	nextID int
	calls  map[int]chan message
	diags  map[string][]runtime.Diagnostic // by absolute path, as published
	seq    map[string]uint64               // publications per path
	last   time.Time                       // of the last publication
	open   map[string]int                  // open documents and their versions
	wake   chan struct{}                   // closed and replaced on each publication

	dead    chan struct{} // closed when the server's output ends
	deadErr error         // why, set before dead is closed
	exited  chan struct{} // closed once the process has been reaped
	waitErr error         // how it ended, set before exited is closed
}

type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

// start runs server in root and completes LSP's initialize handshake
// within ctx. On failure the process is gone.
func start(ctx context.Context, s config.ResolvedLSPServer, path, root string) (*client, error) {
	cmd := exec.Command(path, s.Command[1:]...)
	cmd.Dir = root
	cmd.Env = os.Environ()
	for k, v := range s.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	// A pipe of our own rather than StdinPipe: its writes take a
	// deadline, so a server that stops reading cannot hold a write.
	stdinR, stdin, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdin = stdinR
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		stdinR.Close()
		stdin.Close()
		return nil, err
	}
	c := &client{name: s.Name, cmd: cmd, stdin: stdin, stderr: &tailBuffer{max: 2048}, init: s.Initialization,
		calls: map[int]chan message{}, diags: map[string][]runtime.Diagnostic{}, seq: map[string]uint64{},
		open: map[string]int{}, wake: make(chan struct{}), dead: make(chan struct{}), exited: make(chan struct{})}
	cmd.Stderr = c.stderr
	startInOwnGroup(cmd)
	err = cmd.Start()
	stdinR.Close() // the server's now
	if err != nil {
		stdin.Close()
		return nil, fmt.Errorf("start %s: %w", s.Command[0], err)
	}
	go c.read(bufio.NewReader(stdout))
	go func() {
		// Reaped only after its output is read to the end, as os/exec
		// requires of a pipe's reader.
		<-c.dead
		c.waitErr = cmd.Wait()
		close(c.exited)
	}()

	rootURI := fileURI(root)
	params := map[string]any{
		"processId": os.Getpid(),
		"rootUri":   rootURI,
		"workspaceFolders": []any{
			map[string]any{"uri": rootURI, "name": filepath.Base(root)},
		},
		"capabilities": map[string]any{
			"textDocument": map[string]any{
				"publishDiagnostics": map[string]any{"relatedInformation": false, "versionSupport": false},
				"synchronization":    map[string]any{"didOpen": true, "didChange": true},
			},
			"workspace": map[string]any{
				"configuration": true, "workspaceFolders": true,
				"didChangeWatchedFiles": map[string]any{"dynamicRegistration": true},
			},
			"window": map[string]any{"workDoneProgress": true},
		},
	}
	if s.Initialization != nil {
		params["initializationOptions"] = s.Initialization
	}
	if _, err := c.call(ctx, "initialize", params); err != nil {
		c.kill()
		return nil, fmt.Errorf("initialize: %w", err)
	}
	if err := c.notify(ctx, "initialized", map[string]any{}); err != nil {
		c.kill()
		return nil, err
	}
	if s.Initialization != nil {
		_ = c.notify(ctx, "workspace/didChangeConfiguration", map[string]any{"settings": s.Initialization})
	}
	return c, nil
}

// alive reports whether the server's output is still open.
func (c *client) alive() bool {
	select {
	case <-c.dead:
		return false
	default:
		return true
	}
}

// exitError says why the server went away, with the end of its stderr.
// Call it only once dead is closed.
func (c *client) exitError() error {
	select {
	case <-c.exited:
	case <-time.After(time.Second):
		// Output closed but the process lingers: end it.
		c.kill()
		<-c.exited
	}
	err := c.deadErr
	if c.waitErr != nil {
		err = c.waitErr
	} else if errors.Is(err, io.EOF) {
		err = errors.New("exited")
	}
	return fmt.Errorf("%w%s", err, c.stderrTail())
}

// kill ends the process, and every process it started that stayed in its
// group, without ceremony.
func (c *client) kill() {
	c.stdin.Close()
	killGroup(c.cmd)
}

// shutdown asks the server to exit within ctx, then kills it, and waits
// (within ctx) for it to be reaped.
func (c *client) shutdown(ctx context.Context) {
	if c.alive() {
		_, _ = c.call(ctx, "shutdown", nil)
		_ = c.notify(ctx, "exit", nil)
		c.stdin.Close()
		select {
		case <-c.exited:
		case <-ctx.Done():
		}
	}
	c.kill()
	select {
	case <-c.exited:
	case <-ctx.Done():
	}
}

// errStoppedReading is a write's error when the server took nothing by the
// deadline.
var errStoppedReading = errors.New("the language server stopped reading its input and was stopped")

// writeTimeout bounds a write that has no deadline of its own (answers
// to the server's requests).
const writeTimeout = 10 * time.Second

// write sends m by ctx's deadline (writeTimeout when it has none). A
// server that has not taken it by then has stopped reading; it is killed,
// since its input may now hold half a message.
func (c *client) write(ctx context.Context, m any) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(writeTimeout)
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.stdin.SetWriteDeadline(deadline)
	_, err = fmt.Fprintf(c.stdin, "Content-Length: %d\r\n\r\n%s", len(b), b)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		c.kill()
		return errStoppedReading
	}
	if err != nil {
		return fmt.Errorf("write to language server: %w", err)
	}
	return nil
}

func (c *client) notify(ctx context.Context, method string, params any) error {
	return c.write(ctx, map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

func (c *client) call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	c.mu.Lock()
	c.nextID++
	id := c.nextID
	ch := make(chan message, 1)
	c.calls[id] = ch
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.calls, id)
		c.mu.Unlock()
	}()
	if err := c.write(ctx, map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params}); err != nil {
		return nil, err
	}
	select {
	case m := <-ch:
		if m.Error != nil {
			return nil, fmt.Errorf("%s: %s (code %d)", method, m.Error.Message, m.Error.Code)
		}
		return m.Result, nil
	case <-c.dead:
		return nil, fmt.Errorf("%s: server exited: %w", method, c.exitError())
	case <-ctx.Done():
		return nil, fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

// read dispatches the server's messages until its stdout closes.
func (c *client) read(r *bufio.Reader) {
	for {
		m, err := readMessage(r)
		if err != nil {
			c.deadErr = err
			close(c.dead)
			return
		}
		switch {
		case m.Method != "" && len(m.ID) > 0:
			go c.answer(m)
		case m.Method == "textDocument/publishDiagnostics":
			c.publish(m.Params)
		case m.Method == "":
			var id int
			if json.Unmarshal(m.ID, &id) == nil {
				c.mu.Lock()
				ch := c.calls[id]
				c.mu.Unlock()
				if ch != nil {
					// Buffered for one answer; a server that answers
					// again is ignored, not waited on.
					select {
					case ch <- m:
					default:
					}
				}
			}
		}
	}
}

// answer replies to a server's request: for workspace/configuration the
// initialization options' section asked for (null when none), for
// workspace/workspaceFolders the root, null for everything else
// (registrations, progress), which servers accept.
func (c *client) answer(m message) {
	var result any
	switch m.Method {
	case "workspace/configuration":
		var p struct {
			Items []struct {
				Section string `json:"section"`
			} `json:"items"`
		}
		_ = json.Unmarshal(m.Params, &p)
		out := make([]any, len(p.Items))
		for i, it := range p.Items {
			out[i] = section(c.init, it.Section)
		}
		result = out
	case "workspace/workspaceFolders":
		result = []any{map[string]any{"uri": fileURI(c.cmd.Dir), "name": filepath.Base(c.cmd.Dir)}}
	}
	_ = c.write(context.Background(), map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": result})
}

// section is settings' value at a dotted section, nil when absent.
func section(settings map[string]any, name string) any {
	if name == "" {
		if settings == nil {
			return nil
		}
		return settings
	}
	var cur any = settings
	for _, k := range strings.Split(name, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[k]
	}
	return cur
}

func (c *client) publish(params json.RawMessage) {
	var p struct {
		URI         string               `json:"uri"`
		Diagnostics []runtime.Diagnostic `json:"diagnostics"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	path := uriPath(p.URI)
	if path == "" {
		return
	}
	if p.Diagnostics == nil {
		p.Diagnostics = []runtime.Diagnostic{}
	}
	if len(p.Diagnostics) > maxFileDiagnostics {
		p.Diagnostics = p.Diagnostics[:maxFileDiagnostics]
	}
	for i := range p.Diagnostics {
		d := &p.Diagnostics[i]
		d.Message = cleanText(d.Message, maxDiagnosticMessage)
		d.Source = cleanText(d.Source, 100)
	}
	c.mu.Lock()
	_, known := c.diags[path]
	_, sent := c.open[path]
	if !known && !sent && len(c.diags) >= maxPublishedFiles {
		c.mu.Unlock()
		return
	}
	c.diags[path] = p.Diagnostics
	c.seq[path]++
	c.last = time.Now()
	close(c.wake)
	c.wake = make(chan struct{})
	c.mu.Unlock()
}

// touch sends the file's current text to the server (didOpen the first
// time, didChange after), or didClose for a file that no longer exists,
// plus the matching didChangeWatchedFiles, and returns the file's
// publication count before, which wait compares against (also with an
// error). ok is false when there is nothing to wait for (a deleted file).
func (c *client) touch(ctx context.Context, path string, text []byte, exists bool) (mark uint64, ok bool, err error) {
	c.mu.Lock()
	mark = c.seq[path]
	version, opened := c.open[path]
	if exists {
		c.open[path] = version + 1
	} else {
		delete(c.open, path)
	}
	c.mu.Unlock()
	uri := fileURI(path)
	change := 2 // Changed
	switch {
	case !exists:
		change = 3 // Deleted
		if opened {
			if err := c.notify(ctx, "textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": uri}}); err != nil {
				return mark, false, err
			}
		}
	case !opened:
		if err := c.notify(ctx, "textDocument/didOpen", map[string]any{"textDocument": map[string]any{
			"uri": uri, "languageId": languageID(path), "version": version + 1, "text": string(text),
		}}); err != nil {
			return mark, false, err
		}
	default:
		if err := c.notify(ctx, "textDocument/didChange", map[string]any{
			"textDocument":   map[string]any{"uri": uri, "version": version + 1},
			"contentChanges": []any{map[string]any{"text": string(text)}},
		}); err != nil {
			return mark, false, err
		}
	}
	if err := c.notify(ctx, "workspace/didChangeWatchedFiles", map[string]any{"changes": []any{map[string]any{"uri": uri, "type": change}}}); err != nil {
		return mark, false, err
	}
	return mark, exists, nil
}

// wait returns once every path in marks has had a publication after its
// mark and the server has then been quiet for settle — servers publish in
// rounds, syntax first, then types — or when ctx ends (taking what has
// arrived), or with an error when the server dies.
func (c *client) wait(ctx context.Context, marks map[string]uint64, settle time.Duration) error {
	for {
		c.mu.Lock()
		all := true
		for p, m := range marks {
			if c.seq[p] <= m {
				all = false
				break
			}
		}
		quiet := settle - time.Since(c.last)
		wake := c.wake
		c.mu.Unlock()
		var timer <-chan time.Time
		if all {
			if quiet <= 0 {
				return nil
			}
			t := time.NewTimer(quiet)
			defer t.Stop()
			timer = t.C
		}
		select {
		case <-wake:
		case <-timer:
		case <-c.dead:
			return c.exitError()
		case <-ctx.Done():
			return nil
		}
	}
}

// snapshot copies the diagnostics the server has published.
func (c *client) snapshot() map[string][]runtime.Diagnostic {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string][]runtime.Diagnostic, len(c.diags))
	for p, ds := range c.diags {
		out[p] = ds
	}
	return out
}

func (c *client) stderrTail() string {
	if s := strings.TrimSpace(c.stderr.String()); s != "" {
		return "; its stderr ends: " + s
	}
	return ""
}
