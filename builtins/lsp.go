package builtins

import (
	"bufio"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/template"
	"time"

	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/config"
	"github.com/toolhost/toolhost/runtime/permission"
)

// lspToolName is the lsp tool's id and the permission it asks (the pattern
// is the file's path relative to the project).
const lspToolName = "lsp"

// Diagnostic report limits, as OpenCode's: errors shown per file, and other
// files with errors shown besides the one asked about.
const (
	lspMaxPerFile    = 20
	lspMaxOtherFiles = 5
	// lspSettle is how long the server must stay quiet, after it has
	// published diagnostics for the file, before they are taken as final:
	// servers publish in rounds (syntax first, then types).
	lspSettle = 750 * time.Millisecond
	// lspTimeout bounds one check, server start-up included.
	lspTimeout = 60 * time.Second
)

//go:embed lsp.txt
var lspDescriptionTemplate string

var lspDescription = func() string {
	var b strings.Builder
	template.Must(template.New("lsp.txt").Parse(lspDescriptionTemplate)).Execute(&b, map[string]any{
		"MaxPerFile": lspMaxPerFile, "MaxOtherFiles": lspMaxOtherFiles,
	})
	return b.String()
}()

// lspParams are the lsp tool's arguments.
type lspParams struct {
	FilePath string `json:"filePath" jsonschema:"description=The file to check (absolute or relative to the working directory)"`
}

// LSP returns the lsp tool: it starts the language server configured for
// the file's extension (config "lsp": {"go": {"command": ["gopls"],
// "extensions": [".go"]}}), opens the file, waits until the server's
// diagnostics settle, and reports up to 20 errors for the file and for up
// to 5 other files, as OpenCode does after an edit. The registry offers it
// only with experimental.lsp_tool. A call asks permission lsp for the file
// (and external_directory outside the project). Each call runs its own
// server process, killed when the call ends or is cancelled.
// Result metadata: server, errors (count for the file), diagnostics (per
// file, errors only).
func LSP() runtime.Tool {
	return runtime.Declare(runtime.Define(lspToolName, lspDescription, func(ctx context.Context, p lspParams, tc *runtime.Context) (runtime.Result, error) {
		if p.FilePath == "" {
			return runtime.Result{}, errors.New("filePath is empty; pass the file to check")
		}
		path := tc.ResolvePath(p.FilePath)
		if err := tc.CheckExternalDirectory(ctx, path, false); err != nil {
			return runtime.Result{}, err
		}
		rel := path
		if r, err := filepath.Rel(tc.Worktree, path); err == nil && !strings.HasPrefix(r, "..") {
			rel = r
		}
		name, server, ok := lspServerFor(tc.Config, path)
		if !ok {
			return runtime.Result{}, fmt.Errorf("no language server is configured for %s files; add one to the config: \"lsp\": {\"go\": {\"command\": [\"gopls\"], \"extensions\": [\".go\"]}}", filepath.Ext(path))
		}
		if err := tc.Ask(ctx, permission.Request{Permission: lspToolName, Patterns: []string{rel}, Always: []string{"*"}, Metadata: map[string]any{"filePath": path, "server": name}}); err != nil {
			return runtime.Result{}, err
		}
		root := tc.Worktree
		if root == "" {
			root = filepath.Dir(path)
		}
		diags, err := lspDiagnostics(ctx, server, root, path)
		if err != nil {
			return runtime.Result{}, fmt.Errorf("language server %s: %w", name, err)
		}
		out, count := formatDiagnostics(path, root, diags)
		meta := map[string]any{"server": name, "errors": count, "diagnostics": diags}
		return runtime.Result{Title: rel, Output: out, Metadata: meta}, nil
	}), lspTraits)
}

// lspTraits: asks "lsp" for the file itself; offered only with
// experimental.lsp_tool; changes nothing.
var lspTraits = runtime.Traits{
	ChecksOwnPermission: true,
	Available: func(env runtime.Env) error {
		if !env.Config.Experimental.LSPTool {
			return runtime.NotOffered("the lsp tool is experimental and off", `"experimental": {"lsp_tool": true}`)
		}
		return nil
	},
	Hints: &runtime.Hints{ReadOnly: true, Idempotent: true},
}

// lspServerFor finds the configured server for a file's extension; when
// several match, the first by name.
func lspServerFor(cfg *config.Config, path string) (string, config.LSPServer, bool) {
	if cfg == nil {
		return "", config.LSPServer{}, false
	}
	ext := filepath.Ext(path)
	for _, name := range slices.Sorted(maps.Keys(cfg.LSP)) {
		s := cfg.LSP[name]
		if len(s.Command) > 0 && slices.Contains(s.Extensions, ext) {
			return name, s, true
		}
	}
	return "", config.LSPServer{}, false
}

// diagnostic is one error a language server reported, 1-based.
type diagnostic struct {
	Line    int    `json:"line"`
	Column  int    `json:"column"`
	Message string `json:"message"`
	Source  string `json:"source,omitempty"`
}

// lspDiagnostics starts server in root, opens path and returns the errors
// (severity 1) it publishes, by absolute file path, once they settle. Other
// hosts — an edit hook, say — can call it directly.
func lspDiagnostics(ctx context.Context, server config.LSPServer, root, path string) (map[string][]diagnostic, error) {
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	ctx, cancel := context.WithTimeout(ctx, lspTimeout)
	defer cancel()
	c, err := startLSP(ctx, server.Command, root)
	if err != nil {
		return nil, err
	}
	defer c.close()

	rootURI := fileURI(root)
	init := map[string]any{
		"processId": os.Getpid(),
		"rootUri":   rootURI,
		"workspaceFolders": []any{
			map[string]any{"uri": rootURI, "name": filepath.Base(root)},
		},
		"capabilities": map[string]any{
			"textDocument": map[string]any{
				"publishDiagnostics": map[string]any{"relatedInformation": false},
				"synchronization":    map[string]any{"didSave": true},
			},
			"workspace": map[string]any{"configuration": true, "workspaceFolders": true},
			"window":    map[string]any{"workDoneProgress": false},
		},
	}
	if _, err := c.call(ctx, "initialize", init); err != nil {
		return nil, fmt.Errorf("initialize: %w", err)
	}
	if err := c.notify("initialized", map[string]any{}); err != nil {
		return nil, err
	}
	uri := fileURI(path)
	if err := c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": uri, "languageId": languageID(path), "version": 1, "text": string(text),
	}}); err != nil {
		return nil, err
	}

	// Wait for the file's diagnostics, then for the server to go quiet.
	var timer <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return nil, fmt.Errorf("no diagnostics for %s within %s; check that the server works on this project (run it by hand)", path, lspTimeout)
			}
			return nil, ctx.Err()
		case err := <-c.dead:
			return nil, fmt.Errorf("server exited before reporting: %w%s", err, c.stderrTail())
		case u := <-c.published:
			if u == uri || timer != nil {
				timer = time.After(lspSettle)
			}
		case <-timer:
			// Taken before shutdown: servers clear their diagnostics on
			// the way out.
			diags := c.errorsByFile()
			_, _ = c.call(ctx, "shutdown", nil)
			_ = c.notify("exit", nil)
			return diags, nil
		}
	}
}

// formatDiagnostics renders the report the model sees and counts the
// file's errors.
func formatDiagnostics(path, root string, diags map[string][]diagnostic) (string, int) {
	var b strings.Builder
	own := diags[path]
	block := func(ds []diagnostic) string {
		var s strings.Builder
		for i, d := range ds {
			if i == lspMaxPerFile {
				fmt.Fprintf(&s, "... and %d more\n", len(ds)-lspMaxPerFile)
				break
			}
			fmt.Fprintf(&s, "ERROR [%d:%d] %s\n", d.Line, d.Column, d.Message)
		}
		return s.String()
	}
	if len(own) == 0 {
		fmt.Fprintf(&b, "No errors reported in %s.\n", path)
	} else {
		fmt.Fprintf(&b, "This file has errors, please fix\n<file_diagnostics>\n%s</file_diagnostics>\n", block(own))
	}
	var others []string
	for f, ds := range diags {
		if f != path && len(ds) > 0 {
			others = append(others, f)
		}
	}
	slices.Sort(others)
	if len(others) > 0 {
		b.WriteString("\nLSP errors detected in other files:\n")
		for i, f := range others {
			if i == lspMaxOtherFiles {
				fmt.Fprintf(&b, "... and %d more files with errors\n", len(others)-lspMaxOtherFiles)
				break
			}
			name := f
			if r, err := filepath.Rel(root, f); err == nil && !strings.HasPrefix(r, "..") {
				name = r
			}
			fmt.Fprintf(&b, "<diagnostics file=%q>\n%s</diagnostics>\n", name, block(diags[f]))
		}
	}
	return strings.TrimRight(b.String(), "\n"), len(own)
}

// lspClient is a minimal JSON-RPC 2.0 client over a server's stdio, with
// LSP's Content-Length framing. It answers the requests servers make of
// their client (configuration, capability registration, progress) with
// empty results, which every server accepts.
type lspClient struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr *tailBuffer

	wmu    sync.Mutex
	mu     sync.Mutex
	nextID int
	calls  map[int]chan lspMessage
	diags  map[string][]diagnostic // by absolute path, errors only

	published chan string // uris, as diagnostics arrive
	dead      chan error
}

type lspMessage struct {
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

func startLSP(ctx context.Context, command []string, root string) (*lspClient, error) {
	cmd := exec.CommandContext(ctx, command[0], command[1:]...)
	cmd.Dir = root
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	c := &lspClient{cmd: cmd, stdin: stdin, stderr: &tailBuffer{max: 2048}, calls: map[int]chan lspMessage{}, diags: map[string][]diagnostic{},
		published: make(chan string, 64), dead: make(chan error, 1)}
	cmd.Stderr = c.stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w; install it or fix the lsp command in the config", command[0], err)
	}
	go c.read(bufio.NewReader(stdout))
	return c, nil
}

func (c *lspClient) close() {
	c.stdin.Close()
	if c.cmd.Process != nil {
		c.cmd.Process.Kill()
	}
	c.cmd.Wait()
}

func (c *lspClient) write(m any) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if _, err := fmt.Fprintf(c.stdin, "Content-Length: %d\r\n\r\n%s", len(b), b); err != nil {
		return fmt.Errorf("write to language server: %w%s", err, c.stderrTail())
	}
	return nil
}

func (c *lspClient) notify(method string, params any) error {
	return c.write(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

func (c *lspClient) call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	c.mu.Lock()
	c.nextID++
	id := c.nextID
	ch := make(chan lspMessage, 1)
	c.calls[id] = ch
	c.mu.Unlock()
	if err := c.write(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params}); err != nil {
		return nil, err
	}
	select {
	case m := <-ch:
		if m.Error != nil {
			return nil, fmt.Errorf("%s: %s (code %d)", method, m.Error.Message, m.Error.Code)
		}
		return m.Result, nil
	case err := <-c.dead:
		c.dead <- err
		return nil, fmt.Errorf("%s: server exited: %w%s", method, err, c.stderrTail())
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// read dispatches the server's messages until its stdout closes.
func (c *lspClient) read(r *bufio.Reader) {
	for {
		m, err := readLSPMessage(r)
		if err != nil {
			c.dead <- err
			return
		}
		switch {
		case m.Method != "" && len(m.ID) > 0:
			c.answer(m)
		case m.Method == "textDocument/publishDiagnostics":
			c.publish(m.Params)
		case m.Method == "":
			var id int
			if json.Unmarshal(m.ID, &id) == nil {
				c.mu.Lock()
				ch := c.calls[id]
				delete(c.calls, id)
				c.mu.Unlock()
				if ch != nil {
					ch <- m
				}
			}
		}
	}
}

// answer replies to a server's request: a null per configuration item
// asked for (use defaults), null for everything else.
func (c *lspClient) answer(m lspMessage) {
	var result any
	if m.Method == "workspace/configuration" {
		var p struct {
			Items []json.RawMessage `json:"items"`
		}
		_ = json.Unmarshal(m.Params, &p)
		result = make([]any, len(p.Items))
	}
	_ = c.write(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": result})
}

func (c *lspClient) publish(params json.RawMessage) {
	var p struct {
		URI         string `json:"uri"`
		Diagnostics []struct {
			Range struct {
				Start struct {
					Line      int `json:"line"`
					Character int `json:"character"`
				} `json:"start"`
			} `json:"range"`
			Severity int    `json:"severity"`
			Message  string `json:"message"`
			Source   string `json:"source"`
		} `json:"diagnostics"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	var errs []diagnostic
	for _, d := range p.Diagnostics {
		// Severity 1 is Error; a missing severity is for the client to
		// decide, and an error is the safe reading.
		if d.Severity == 1 || d.Severity == 0 {
			errs = append(errs, diagnostic{Line: d.Range.Start.Line + 1, Column: d.Range.Start.Character + 1, Message: d.Message, Source: d.Source})
		}
	}
	c.mu.Lock()
	if path := uriPath(p.URI); path != "" {
		c.diags[path] = errs
	}
	c.mu.Unlock()
	select {
	case c.published <- p.URI:
	default: // the waiter only needs to know something arrived
	}
}

func (c *lspClient) errorsByFile() map[string][]diagnostic {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string][]diagnostic{}
	for f, ds := range c.diags {
		if len(ds) > 0 {
			out[f] = slices.Clone(ds)
		}
	}
	return out
}

func (c *lspClient) stderrTail() string {
	if s := strings.TrimSpace(c.stderr.String()); s != "" {
		return "; its stderr ends: " + s
	}
	return ""
}

// readLSPMessage reads one Content-Length framed message.
func readLSPMessage(r *bufio.Reader) (lspMessage, error) {
	length := -1
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return lspMessage{}, err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		if v, ok := strings.CutPrefix(strings.ToLower(line), "content-length:"); ok {
			if length, err = strconv.Atoi(strings.TrimSpace(v)); err != nil {
				return lspMessage{}, fmt.Errorf("bad Content-Length %q", line)
			}
		}
	}
	if length < 0 || length > 64<<20 {
		return lspMessage{}, fmt.Errorf("language server sent a message without a usable Content-Length (%d)", length)
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(r, body); err != nil {
		return lspMessage{}, err
	}
	var m lspMessage
	if err := json.Unmarshal(body, &m); err != nil {
		return lspMessage{}, fmt.Errorf("language server sent invalid JSON: %w", err)
	}
	return m, nil
}

func fileURI(path string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}

func uriPath(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return ""
	}
	return filepath.FromSlash(u.Path)
}

// languageID is the LSP language identifier for a file, by extension; the
// extension without its dot otherwise, which most servers accept.
func languageID(path string) string {
	ext := strings.TrimPrefix(filepath.Ext(path), ".")
	switch ext {
	case "ts", "mts", "cts":
		return "typescript"
	case "tsx":
		return "typescriptreact"
	case "js", "mjs", "cjs":
		return "javascript"
	case "jsx":
		return "javascriptreact"
	case "py":
		return "python"
	case "rs":
		return "rust"
	case "rb":
		return "ruby"
	case "md":
		return "markdown"
	case "sh", "bash":
		return "shellscript"
	}
	return ext
}

// tailBuffer keeps the last max bytes written, for error messages.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}
