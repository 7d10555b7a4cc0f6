package server_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/mcp/internal/stdio"
	"github.com/toolhost/toolhost/mcp/server"
	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/config"
	"github.com/toolhost/toolhost/runtime/permission"
)

// On stdio the server's connection reads the client's messages while calls
// run (mcp/internal/stdio). These tests hold it to that: whatever a call waits on —
// a question, a slow tool, calls sent without waiting for answers — the
// connection reads on, and a ping sent meanwhile is answered before the
// call ends.

// heldInbox is a permission inbox whose questions wait until released.
type heldInbox struct {
	asked   chan permission.Request
	release chan permission.Reply
}

func (h *heldInbox) Ask(ctx context.Context, req permission.Request) (permission.Reply, error) {
	h.asked <- req
	select {
	case r := <-h.release:
		return r, nil
	case <-ctx.Done():
		return permission.Reply{}, ctx.Err()
	}
}

// gate is a tool that waits until its test lets it finish.
type gate struct {
	started chan struct{}
	finish  chan struct{}
}

func (g *gate) tool(id string, tr runtime.Traits) runtime.Tool {
	return runtime.Declare(runtime.Define(id, "Waits until the test lets it finish.", func(ctx context.Context, _ struct{}, tc *runtime.Context) (runtime.Result, error) {
		g.started <- struct{}{}
		select {
		case <-g.finish:
			return runtime.Result{Title: id, Output: id + " finished"}, nil
		case <-ctx.Done():
			return runtime.Result{}, ctx.Err()
		}
	}), tr)
}

// wireInputs are the two ways a stream's input is read: an io.Pipe, read
// by a goroutine of its own, and an OS pipe, read by the reading goroutine
// itself through the poller (an MCP client's stdin).
var wireInputs = []struct {
	name string
	open func(t *testing.T, srv *server.Server) *wire
}{
	{"io-pipe", func(t *testing.T, srv *server.Server) *wire { return newWireOn(t, &fixture{srv: srv}) }},
	{"os-pipe", newOSPipeWire},
	{"poll", newPollWire},
}

// newOSPipeWire serves srv with an OS pipe as its input, which the stream
// reads through the runtime's poller, as it reads an MCP client's stdin.
func newOSPipeWire(t *testing.T, srv *server.Server) *wire {
	t.Helper()
	toServer, fromClient, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	return serveWire(t, srv, toServer, fromClient)
}

func TestStdioAQuestionOfACallLetsTheConnectionReadOn(t *testing.T) {
	for _, in := range wireInputs {
		t.Run(in.name, func(t *testing.T) {
			f := newFixture(t, `{"read": {"*": "allow", "*.secret": "ask"}}`)
			inbox := &heldInbox{asked: make(chan permission.Request, 1), release: make(chan permission.Reply, 1)}
			srv, err := server.New(context.Background(), f.reg, server.Options{AskFallback: config.AskFallbackInbox, Inbox: inbox})
			if err != nil {
				t.Fatal(err)
			}
			plain, secret := f.write(t, "plain.txt", "plain text\n"), f.write(t, "a.secret", "the secret\n")
			w := in.open(t, srv)
			w.initialize("2025-06-18")
			// Calls one after another: each answered in turn.
			for i := range 3 {
				w.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"read","arguments":{"filePath":%q}}}`, 10+i, plain))
				if got := w.recv(); !strings.Contains(got, fmt.Sprintf(`"id":%d`, 10+i)) || !strings.Contains(got, "plain text") {
					t.Fatalf("read %d: %.300s", i, got)
				}
			}
			// A read that asks: the question waits in the inbox, and a
			// ping sent meanwhile is answered before the read.
			w.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":20,"method":"tools/call","params":{"name":"read","arguments":{"filePath":%q}}}`, secret))
			select {
			case req := <-inbox.asked:
				if req.Permission != "read" {
					t.Fatalf("asked %+v", req)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the read did not ask")
			}
			w.send(`{"jsonrpc":"2.0","id":21,"method":"ping"}`)
			if got := w.recvReply(); !strings.Contains(got, `"id":21`) {
				t.Fatalf("while the read waits, got %.300s, want the ping's answer", got)
			}
			inbox.release <- permission.Reply{Kind: permission.Once}
			if got := w.recvReply(); !strings.Contains(got, `"id":20`) || !strings.Contains(got, "the secret") {
				t.Fatalf("the read once allowed: %.300s", got)
			}
			// And the connection goes on answering calls.
			w.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":30,"method":"tools/call","params":{"name":"read","arguments":{"filePath":%q}}}`, plain))
			if got := w.recv(); !strings.Contains(got, `"id":30`) || !strings.Contains(got, "plain text") {
				t.Fatalf("read after: %.300s", got)
			}
		})
	}
}

func TestStdioACallThatWaitsLetsTheConnectionReadOn(t *testing.T) {
	cases := []struct {
		name   string
		traits runtime.Traits
	}{
		{"undeclared", runtime.Traits{}},
		{"claims-to-be-read-only", runtime.Traits{Claimed: true, Hints: &runtime.Hints{ReadOnly: true}}},
		{"declared-read-only", runtime.Traits{Hints: &runtime.Hints{ReadOnly: true, Idempotent: true}}},
	}
	for _, in := range wireInputs {
		for _, c := range cases {
			t.Run(in.name+"/"+c.name, func(t *testing.T) {
				f := newFixture(t, `{"*": "allow"}`)
				g := &gate{started: make(chan struct{}, 1), finish: make(chan struct{})}
				f.reg.Add(runtime.SourceRuntime, g.tool("hold", c.traits))
				if err := f.srv.Refresh(context.Background()); err != nil {
					t.Fatal(err)
				}
				w := in.open(t, f.srv)
				w.initialize("2025-06-18")
				// A round trip first, so that the call finds the
				// connection idle.
				w.send(`{"jsonrpc":"2.0","id":90,"method":"ping"}`)
				if got := w.recv(); !strings.Contains(got, `"id":90`) {
					t.Fatalf("ping: %.300s", got)
				}
				w.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"hold","arguments":{}}}`)
				select {
				case <-g.started:
				case <-time.After(10 * time.Second):
					t.Fatal("hold did not start")
				}
				w.send(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
				if got := w.recv(); !strings.Contains(got, `"id":3`) {
					t.Fatalf("while hold runs, got %.300s, want the ping's answer", got)
				}
				// Cancelled by the client: the connection reads that too,
				// and the call ends.
				w.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`)
				if got := w.recv(); !strings.Contains(got, `"id":2`) || !strings.Contains(got, "canceled") {
					t.Fatalf("cancelled hold: %.300s", got)
				}
				w.send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"hold","arguments":{}}}`)
				<-g.started
				close(g.finish)
				if got := w.recv(); !strings.Contains(got, `"id":4`) || !strings.Contains(got, "hold finished") {
					t.Fatalf("second hold: %.300s", got)
				}
			})
		}
	}
}

// TestStdioPipelinedCallsAllComeBack sends many reads without
// waiting for answers, as a client with calls in flight does: they run
// side by side, and every one is answered once.
func TestStdioPipelinedCallsAllComeBack(t *testing.T) {
	for _, in := range wireInputs {
		t.Run(in.name, func(t *testing.T) {
			f := newFixture(t, `{"*": "allow"}`)
			file := f.write(t, "ten.txt", strings.Repeat("a line of text\n", 700))
			w := in.open(t, f.srv)
			w.initialize("2025-06-18")
			const n = 64
			var lines strings.Builder
			for i := range n {
				fmt.Fprintf(&lines, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"read","arguments":{"filePath":%q}}}`+"\n", 100+i, file)
			}
			go w.write(lines.String())
			seen := map[string]bool{}
			for range n {
				got := w.recv()
				i := strings.Index(got, `"id":`)
				if i < 0 || !strings.Contains(got, "a line of text") {
					t.Fatalf("response %.200s", got)
				}
				id := got[i : i+len(`"id":100`)]
				if seen[id] {
					t.Fatalf("answered twice: %s", id)
				}
				seen[id] = true
			}
		})
	}
}

// newPollWire serves srv reading an OS pipe as ServeStdio reads its
// stdin (poll(2) on Unix).
func newPollWire(t *testing.T, srv *server.Server) *wire {
	t.Helper()
	toServer, fromClient, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	return serveWire(t, srv, stdio.StdinInput(toServer), fromClient)
}
