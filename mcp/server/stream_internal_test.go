package server

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// TestAClientThatSentMoreIsNotRunInline: on an input read by a goroutine
// of its own (io.Pipe, a terminal), a line read ahead shows, so a request
// followed by more is handed off rather than run on the reading goroutine;
// the last one, with nothing after it, runs inline.
func TestAClientThatSentMoreIsNotRunInline(t *testing.T) {
	r, w := io.Pipe()
	c := newStreamConn(r, io.Discard)
	defer c.Close()
	go w.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":2,"method":"ping"}` + "\n"))
	first, err := c.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for len(c.incoming) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the second line never showed as read ahead")
		}
		time.Sleep(time.Millisecond)
	}
	if c.RunsInline(first.(*jsonrpc.Request)) {
		t.Error("the first ping would run inline with the second already sent")
	}
	second, err := c.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !c.RunsInline(second.(*jsonrpc.Request)) {
		t.Error("the last ping would not run inline")
	}
}
