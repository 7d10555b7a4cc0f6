// Package lsptest is a fake language server for tests: the test binary
// serves LSP on its stdio when started with EnvServe set (see Server and
// ServeIfAsked), and the diagnostics it publishes are read from the text
// of each file it is sent, so a test states what the server will say in
// the file it edits:
//
//   - a line with "ERROR: msg" is an error (severity 1) at that line and
//     column, with message msg; "WARN: msg" a warning;
//   - a line "OTHER name n" publishes n errors for the file name beside it;
//   - text containing "CRASH" makes the server exit with status 3 before
//     answering, writing the rest of the text to its stderr;
//   - text containing "SILENT" gets no answer at all;
//   - text containing "DEAF" makes the server stop reading its input (it
//     lives on, reading nothing);
//   - text containing "ORPHAN" makes the server start a child ("sleep")
//     that shares its stdout and outlives it, logged as "pid orphan
//     childpid".
//
// With EnvLog set to a file, each process appends "pid method [path]" per
// message received, so a test can count processes and what they were told.
package lsptest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/runtime/config"
)

// Environment variables the fake server reads.
const (
	EnvServe = "TOOLHOST_LSPTEST_SERVE"
	EnvLog   = "TOOLHOST_LSPTEST_LOG"
)

// ServeIfAsked serves LSP on stdio and exits when EnvServe is set; call it
// first in TestMain.
func ServeIfAsked() {
	if os.Getenv(EnvServe) == "" {
		return
	}
	serve(os.Stdin, os.Stdout)
	os.Exit(0)
}

// Server returns an "lsp" entry that runs this test binary as the fake
// server for extensions, logging to the returned file.
func Server(t testing.TB, extensions ...string) (config.LSPServer, string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(t.TempDir(), "lsp.log")
	return config.LSPServer{Command: []string{exe}, Extensions: extensions, Env: map[string]string{EnvServe: "1", EnvLog: log}}, log
}

// Log returns the lines of a fake server's log ("" when none yet).
func Log(t testing.TB, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

// Count returns how many log lines have the method.
func Count(t testing.TB, path, method string) int {
	n := 0
	for _, l := range Log(t, path) {
		if f := strings.Fields(l); len(f) > 1 && f[1] == method {
			n++
		}
	}
	return n
}

type msg struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

func serve(in io.Reader, out io.Writer) {
	r := bufio.NewReader(in)
	w := bufio.NewWriter(out)
	send := func(v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "Content-Length: %d\r\n\r\n%s", len(b), b)
		w.Flush()
	}
	logf := func(method, path string) {
		if p := os.Getenv(EnvLog); p != "" {
			f, err := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
			if err == nil {
				fmt.Fprintf(f, "%d %s %s\n", os.Getpid(), method, path)
				f.Close()
			}
		}
	}
	for {
		m, err := read(r)
		if err != nil {
			return
		}
		var p struct {
			TextDocument struct {
				URI  string `json:"uri"`
				Text string `json:"text"`
			} `json:"textDocument"`
			ContentChanges []struct {
				Text string `json:"text"`
			} `json:"contentChanges"`
		}
		json.Unmarshal(m.Params, &p)
		path := uriPath(p.TextDocument.URI)
		logf(m.Method, path)
		switch m.Method {
		case "initialize":
			send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{"capabilities": map[string]any{"textDocumentSync": 1}}})
		case "shutdown":
			send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": nil})
		case "exit":
			return
		case "textDocument/didOpen", "textDocument/didChange":
			text := p.TextDocument.Text
			if len(p.ContentChanges) > 0 {
				text = p.ContentChanges[len(p.ContentChanges)-1].Text
			}
			if strings.Contains(text, "CRASH") {
				_, last, _ := strings.Cut(text, "CRASH")
				fmt.Fprintln(os.Stderr, "fake language server: crashing as asked"+strings.TrimRight(last, "\n"))
				os.Exit(3)
			}
			if strings.Contains(text, "SILENT") {
				continue
			}
			if strings.Contains(text, "DEAF") {
				select {}
			}
			if strings.Contains(text, "ORPHAN") {
				child := exec.Command("sleep", "3600")
				child.Stdout = os.Stdout
				if child.Start() == nil {
					logf("orphan", strconv.Itoa(child.Process.Pid))
				}
			}
			for file, ds := range diagnose(path, text) {
				send(map[string]any{"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics",
					"params": map[string]any{"uri": (&url.URL{Scheme: "file", Path: filepath.ToSlash(file)}).String(), "diagnostics": ds}})
			}
		case "textDocument/didClose":
			send(map[string]any{"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics",
				"params": map[string]any{"uri": p.TextDocument.URI, "diagnostics": []any{}}})
		default:
			if len(m.ID) > 0 {
				send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": nil})
			}
		}
	}
}

// diagnose reads the diagnostics a text asks for, by file; the file itself
// is always present, so clearing its errors is published too.
func diagnose(path, text string) map[string][]any {
	out := map[string][]any{path: {}}
	diag := func(line, col int, sev int, message string) any {
		return map[string]any{
			"range":    map[string]any{"start": map[string]any{"line": line, "character": col}, "end": map[string]any{"line": line, "character": col + 1}},
			"severity": sev, "source": "fake", "message": message,
		}
	}
	for i, line := range strings.Split(text, "\n") {
		for _, kind := range []struct {
			word string
			sev  int
		}{{"ERROR:", 1}, {"WARN:", 2}} {
			if c := strings.Index(line, kind.word); c >= 0 {
				out[path] = append(out[path], diag(i, c, kind.sev, strings.TrimSpace(line[c+len(kind.word):])))
			}
		}
		if f := strings.Fields(line); len(f) == 3 && f[0] == "OTHER" {
			n, _ := strconv.Atoi(f[2])
			other := filepath.Join(filepath.Dir(path), f[1])
			for k := range n {
				out[other] = append(out[other], diag(k, 0, 1, fmt.Sprintf("other error %d", k+1)))
			}
		}
	}
	return out
}

func read(r *bufio.Reader) (msg, error) {
	n := -1
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return msg{}, err
		}
		line = strings.TrimSpace(line)
		if line == "" {
			break
		}
		if v, ok := strings.CutPrefix(strings.ToLower(line), "content-length:"); ok {
			n, _ = strconv.Atoi(strings.TrimSpace(v))
		}
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		return msg{}, err
	}
	var m msg
	return m, json.Unmarshal(b, &m)
}

func uriPath(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Path == "" {
		return ""
	}
	return filepath.FromSlash(u.Path)
}
