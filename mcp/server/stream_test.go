package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/toolhost/toolhost/internal/third_party/gosdk/mcp"

	"github.com/toolhost/toolhost/mcp/internal/stdio"
	"github.com/toolhost/toolhost/mcp/server"
	"github.com/toolhost/toolhost/runtime"
)

// emitParams pick one of emitOutputs by index.
type emitParams struct {
	Case int    `json:"case"`
	Echo string `json:"echo,omitempty"`
}

// emitOutputs are outputs whose encoding a splice must get exactly right,
// or that try to pass for a placeholder.
var emitOutputs = []string{
	strings.Repeat("line of a ten kilobyte file, quotes \" and backslashes \\\n", 200),
	strings.Repeat("unicode: héllo wörld ✓ 🚀 日本語 \u2028\u2029 ", 60),
	strings.Repeat("controls \x00\x01\x1f\t\r\n and markup </script><b>&amp;</b> ", 40),
	strings.Repeat("invalid UTF-8 \xff\xfe\xc3 stays replaced ", 40),
	strings.Repeat(`forged "toolhost-splice-00000000000000000000000000000000-0" and "toolhost-splice-`, 30),
	"short, not spliced",
	"",
}

// streamFixture is a server with the tool "emit" served over a pipe as
// ServeStdio serves stdin and stdout, and the same server in memory, to
// compare what a client receives.
type streamFixture struct {
	srv    *server.Server
	stream *sdk.ClientSession
	memory *sdk.ClientSession
}

func newStreamFixture(t *testing.T) *streamFixture {
	t.Helper()
	f := newFixture(t, "")
	emit := runtime.Define("emit", "Returns a chosen output.", func(ctx context.Context, p emitParams, tc *runtime.Context) (runtime.Result, error) {
		out := p.Echo
		if p.Echo == "" {
			out = emitOutputs[p.Case%len(emitOutputs)]
		}
		return runtime.Result{Title: "emit " + fmt.Sprint(p.Case), Output: out, Metadata: map[string]any{"echo": out, "case": p.Case}}, nil
	})
	f.reg.Add(runtime.SourceRuntime, emit)
	if err := f.srv.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	sf := &streamFixture{srv: f.srv, memory: f.connect(t, protoLegacy, nil)}
	sf.stream = sf.connectStream(t, protoLegacy)
	return sf
}

// connectStream serves one client over a pair of pipes.
func (sf *streamFixture) connectStream(t *testing.T, proto string) *sdk.ClientSession {
	t.Helper()
	toServer, fromClient := io.Pipe()
	fromServer, toClient := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- sf.srv.ServeStream(ctx, toServer, toClient) }()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "v0"}, nil).
		Connect(context.Background(), &sdk.IOTransport{Reader: fromServer, Writer: fromClient}, &sdk.ClientSessionOptions{ProtocolVersion: proto})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		cancel()
		toClient.Close()
		<-served
	})
	return cs
}

func TestStdioResultsAreWhatTheSDKWouldHaveSent(t *testing.T) {
	t.Parallel()
	sf := newStreamFixture(t)
	for i := range emitOutputs {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			want, _ := call(t, sf.memory, "emit", emitParams{Case: i})
			got, _ := call(t, sf.stream, "emit", emitParams{Case: i})
			if !reflect.DeepEqual(got, want) {
				gj, _ := json.Marshal(got)
				wj, _ := json.Marshal(want)
				t.Fatalf("over the stream:\n%.400s\nin memory (the SDK's encoding):\n%.400s", gj, wj)
			}
			if strings.Contains(text(got), "toolhost-splice-") && !strings.Contains(emitOutputs[i], "toolhost-splice-") {
				t.Fatalf("a placeholder reached the client: %.200q", text(got))
			}
		})
	}
}

func TestStdioConcurrentCallsGetTheirOwnOutputs(t *testing.T) {
	t.Parallel()
	sf := newStreamFixture(t)
	var wg sync.WaitGroup
	for i := range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			echo := fmt.Sprintf("call %d: %s", i, strings.Repeat(fmt.Sprint(i%10), 2000+i))
			res, err := sf.stream.CallTool(context.Background(), &sdk.CallToolParams{Name: "emit", Arguments: emitParams{Echo: echo}})
			if err != nil {
				t.Errorf("call %d: %v", i, err)
				return
			}
			if got := text(res); got != echo {
				t.Errorf("call %d got another call's output: %.40q", i, got)
			}
			if m, _ := res.Meta[server.MetaMetadataKey].(map[string]any); m["echo"] != echo {
				t.Errorf("call %d got another call's metadata", i)
			}
		}()
	}
	wg.Wait()
}

// wire is a raw client of ServeStream: lines in, lines out.
type wire struct {
	t    testing.TB
	in   io.WriteCloser
	out  *bufio.Reader
	done chan error
}

func newWire(t *testing.T) *wire {
	t.Helper()
	return newWireOn(t, newFixture(t, ""))
}

// newWireOn serves sf's server over an io.Pipe, whose lines the stream
// reads on a goroutine of its own.
func newWireOn(t testing.TB, sf *fixture) *wire {
	t.Helper()
	toServer, fromClient := io.Pipe()
	return serveWire(t, sf.srv, toServer, fromClient)
}

// serveWire serves srv reading what the wire sends through fromClient from
// toServer.
func serveWire(t testing.TB, srv *server.Server, toServer io.ReadCloser, fromClient io.WriteCloser) *wire {
	t.Helper()
	fromServer, toClient := io.Pipe()
	w := &wire{t: t, in: fromClient, out: bufio.NewReader(fromServer), done: make(chan error, 1)}
	go func() {
		w.done <- srv.ServeStream(context.Background(), toServer, toClient)
		toClient.Close()
	}()
	t.Cleanup(func() { fromClient.Close(); fromServer.Close() })
	return w
}

func (w *wire) send(line string) {
	w.t.Helper()
	w.write(line + "\n")
}

// write sends s as it is.
func (w *wire) write(s string) {
	w.t.Helper()
	if _, err := io.WriteString(w.in, s); err != nil {
		w.t.Errorf("send %.80q: %v", s, err)
	}
}

func (w *wire) recv() string {
	w.t.Helper()
	line, err := w.out.ReadString('\n')
	if err != nil {
		w.t.Fatalf("read a response: %v", err)
	}
	return strings.TrimSpace(line)
}

// recvReply is the next message that is not a notification: a call
// waiting in the inbox tells the client so (inboxnote.go) while the
// replies the test waits for come.
func (w *wire) recvReply() string {
	w.t.Helper()
	for {
		if got := w.recv(); !strings.Contains(got, `"method":"notifications/`) {
			return got
		}
	}
}

// ended waits for the server to end the session.
func (w *wire) ended() {
	w.t.Helper()
	go io.Copy(io.Discard, w.out)
	select {
	case <-w.done:
	case <-time.After(30 * time.Second):
		w.t.Fatal("the session did not end")
	}
}

func (w *wire) initialize(version string) {
	w.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + version + `","capabilities":{},"clientInfo":{"name":"wire","version":"0"}}}`)
	if got := w.recv(); !strings.Contains(got, `"protocolVersion":"`+version+`"`) {
		w.t.Fatalf("initialize: %s", got)
	}
	w.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

func TestStdioBatchesAreAnsweredWithOneArrayUntilTheyWereRemoved(t *testing.T) {
	t.Parallel()
	w := newWire(t)
	w.initialize("2025-03-26")
	w.send("")     // blank lines between messages are skipped
	w.send("  \r") // and so are lines of spaces
	w.send(`[{"jsonrpc":"2.0","id":7,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}},{"jsonrpc":"2.0","id":"eight","method":"ping"}]`)
	var batch []map[string]any
	if err := json.Unmarshal([]byte(w.recv()), &batch); err != nil {
		t.Fatalf("a batch is answered with an array: %v", err)
	}
	if len(batch) != 2 || batch[0]["id"] != float64(7) || batch[1]["id"] != "eight" {
		t.Fatalf("batch answer = %v, want the two pings' answers in order", batch)
	}
	w.send(`{"jsonrpc":"2.0","id":9,"method":"ping"}`)
	if got := w.recv(); got != `{"jsonrpc":"2.0","id":9,"result":{}}` {
		t.Fatalf("ping after the batch: %s", got)
	}

	w2 := newWire(t)
	w2.initialize("2025-06-18")
	w2.send(`[{"jsonrpc":"2.0","id":7,"method":"ping"}]`)
	w2.ended()
}

func TestStdioHostileInputEndsTheSessionWithoutAnswer(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"not JSON":                                     `{"jsonrpc":"2.0","id":1,"method":`,
		"two messages on one line":                     `{"jsonrpc":"2.0","id":1,"method":"ping"} {"jsonrpc":"2.0","id":2,"method":"ping"}x`,
		"an empty batch":                               `[]`,
		"a batch with an id twice":                     `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		"nesting past the limit":                       strings.Repeat("[", 2000) + strings.Repeat("]", 2000),
		"a batch nested for ever":                      strings.Repeat("[", 4<<20),
		"a batch of more messages than the cap":        "[" + strings.TrimSuffix(strings.Repeat(`{"jsonrpc":"2.0","method":"notifications/initialized"},`, stdio.MaxBatch+1), ",") + "]",
		"nesting a parser would recurse into for ever": `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":` + strings.Repeat("[", 4<<20) + `}}`,
	}
	for name, line := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w := newWire(t)
			w.send(line)
			w.ended()
		})
	}
}

func TestStdioAMessageOverTheLimitEndsTheSession(t *testing.T) {
	t.Parallel()
	w := newWire(t)
	go func() {
		// One line of 16 MiB and more, without a newline: the reader
		// must give up at the limit, not buffer it all.
		chunk := strings.Repeat("x", 1<<20)
		for range 20 {
			if _, err := io.WriteString(w.in, chunk); err != nil {
				return
			}
		}
	}()
	w.ended()
}

// The go-sdk copy decodes the 2026-07-28 protocol's _meta straight into
// its types (internal/third_party/gosdk, patch 0002): what it refused
// before, it still refuses, with invalid params, and the session goes on.
func TestStdioRequestMetaOfTheSessionlessProtocolIsChecked(t *testing.T) {
	t.Parallel()
	const good = `"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"wire","version":"0"},"io.modelcontextprotocol/clientCapabilities":{}`
	tests := []struct {
		name, meta string
		refused    bool
	}{
		{"complete", good, false},
		{"capabilities missing", `"io.modelcontextprotocol/protocolVersion":"2026-07-28"`, true},
		{"capabilities null", `"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":null`, true},
		{"capabilities of another shape", `"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":"all"`, true},
		{"client info null", `"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":null,"io.modelcontextprotocol/clientCapabilities":{}`, true},
		{"client info of another shape", `"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":[1],"io.modelcontextprotocol/clientCapabilities":{}`, true},
		{"a log level of another shape is ignored", good + `,"io.modelcontextprotocol/logLevel":7`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := newWire(t)
			w.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{` + tt.meta + `}}}`)
			got := w.recv()
			if refused := strings.Contains(got, `"code":-32602`); refused != tt.refused || (!tt.refused && !strings.Contains(got, `"tools":[`)) {
				t.Fatalf("tools/list with _meta {%s}: %.300s", tt.meta, got)
			}
			w.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{` + good + `}}}`)
			if got := w.recv(); !strings.Contains(got, `"tools":[`) {
				t.Fatalf("the session did not go on: %.300s", got)
			}
		})
	}
}
