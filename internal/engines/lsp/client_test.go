package lsp

import (
	"bufio"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/runtime"
)

func frame(body string) string {
	return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)
}

// TestReadSurvivesRepeatedResponses: a server that answers one request
// several times must not stall the reader (and with it every later
// diagnostic and the detection of its exit) on a call nobody waits for.
func TestReadSurvivesRepeatedResponses(t *testing.T) {
	t.Parallel()
	c := &client{calls: map[int]chan message{1: make(chan message, 1)}, diags: map[string][]runtime.Diagnostic{},
		seq: map[string]uint64{}, wake: make(chan struct{}), dead: make(chan struct{})}
	reply := frame(`{"jsonrpc":"2.0","id":1,"result":null}`)
	in := strings.Repeat(reply, 3) + frame(`{"jsonrpc":"2.0","method":"textDocument/publishDiagnostics","params":{"uri":"file:///p/a.go","diagnostics":[]}}`)
	go c.read(bufio.NewReader(strings.NewReader(in)))
	select {
	case <-c.dead:
	case <-time.After(30 * time.Second):
		t.Fatal("the reader never reached the end of the server's output")
	}
	if c.seq["/p/a.go"] != 1 {
		t.Errorf("publications of a.go: %d, want 1", c.seq["/p/a.go"])
	}
}

// TestPublicationsOfEndlessFilesAreBounded: a server publishing for ever
// new files must not grow what toolhost keeps without limit; the files
// toolhost sent are still followed.
func TestPublicationsOfEndlessFilesAreBounded(t *testing.T) {
	t.Parallel()
	c := &client{calls: map[int]chan message{}, diags: map[string][]runtime.Diagnostic{}, seq: map[string]uint64{},
		open: map[string]int{"/p/mine.go": 1}, wake: make(chan struct{}), dead: make(chan struct{})}
	var in strings.Builder
	pub := func(uri string) {
		in.WriteString(frame(`{"jsonrpc":"2.0","method":"textDocument/publishDiagnostics","params":{"uri":"` + uri + `","diagnostics":[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":1}},"severity":1,"message":"x"}]}}`))
	}
	for i := range 2 * maxPublishedFiles {
		pub(fmt.Sprintf("file:///p/f%d.go", i))
	}
	pub("file:///p/mine.go")
	c.read(bufio.NewReader(strings.NewReader(in.String())))
	if n := len(c.diags); n > maxPublishedFiles+1 {
		t.Errorf("kept the diagnostics of %d files, limit %d", n, maxPublishedFiles)
	}
	if n := len(c.seq); n > maxPublishedFiles+1 {
		t.Errorf("kept publication counts of %d files, limit %d", n, maxPublishedFiles)
	}
	if c.seq["/p/mine.go"] != 1 || len(c.diags["/p/mine.go"]) != 1 {
		t.Errorf("the file toolhost sent lost its publication: %d, %+v", c.seq["/p/mine.go"], c.diags["/p/mine.go"])
	}
}
