package js

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/permission"
)

type noPause struct{}

func (noPause) Pause() func() { return func() {} }

func (noPause) Remaining() time.Duration { return time.Minute }

// TestBridgeRefusesHostileRequests: what a hostile script can send through
// __host, each refused with a message and nothing done.
func TestBridgeRefusesHostileRequests(t *testing.T) {
	t.Parallel()
	work := t.TempDir()
	os.WriteFile(filepath.Join(work, "ok.txt"), []byte("ok"), 0o644)
	b := &Bridge{Tool: "t", Paths: map[string]string{"ro:" + work: "/work"}}
	tests := []struct{ name, op, arg, want string }{
		{"an unknown op", "exec", `"ls"`, "unknown host call"},
		{"negative randomness", "random", `-1`, "byte count"},
		{"too much randomness", "random", `100000000`, "byte count"},
		{"fetch of a file URL", "fetch", `{"url":"file:///etc/passwd","body":""}`, "only http and https"},
		{"fetch of the metadata address", "fetch", `{"url":"http://169.254.169.254/latest","body":""}`, "not allowed"},
		{"fetch with a broken body", "fetch", `{"url":"http://example.com","body":"%%%"}`, "body"},
		{"a read through ..", "fs.read", `{"path":"/work/../etc/passwd"}`, "outside the tool's allowed_paths"},
		{"a write to a read-only grant", "fs.write", `{"path":"/work/x","data":""}`, "read-only"},
		{"a mkdir in a read-only grant", "fs.mkdir", `{"path":"/work/d"}`, "read-only"},
		{"an empty path", "fs.read", `{"path":""}`, "empty path"},
		{"an ask with no permission", "ask", `{"patterns":["x"]}`, "permission"},
		{"an ask outside a call", "ask", `{"permission":"x","patterns":[]}`, "rejected"},
		{"a relative URL with no base", "url", `{"url":"/a","base":""}`, "invalid URL"},
		{"not JSON at all", "fs.read", `{`, "fs.read"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := b.Handle(context.Background(), noPause{}, tt.op, json.RawMessage(tt.arg))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
	if v, err := b.Handle(context.Background(), noPause{}, "fs.read", json.RawMessage(`{"path":"/work/ok.txt"}`)); err != nil || v != "b2s=" {
		t.Fatalf("a granted read = %v, %v", v, err)
	}
}

// TestBridgeRefusesFilesThatAreNotRegular: a FIFO (or a device) inside
// allowed_paths must not hold the host call, where the script's time
// limit cannot reach, until something else opens the other end.
func TestBridgeRefusesFilesThatAreNotRegular(t *testing.T) {
	t.Parallel()
	work := t.TempDir()
	fifo := filepath.Join(work, "pipe")
	if err := mkfifo(fifo); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	b := &Bridge{Tool: "t", Paths: map[string]string{work: "/work"}}
	for op, want := range map[string]string{"fs.read": "not a regular file", "fs.write": "not a regular file", "fs.readdir": "not a directory"} {
		t.Run(op, func(t *testing.T) {
			done := make(chan error, 1)
			go func() {
				_, err := b.Handle(context.Background(), noPause{}, op, json.RawMessage(`{"path":"/work/pipe","data":"eA=="}`))
				done <- err
			}()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Fatalf("err = %v, want %q", err, want)
				}
			case <-time.After(30 * time.Second):
				// Unblock the stuck open so the test process can end.
				if f, err := os.OpenFile(fifo, os.O_RDWR, 0); err == nil {
					f.Close()
				}
				t.Fatalf("%s of a FIFO never returned", op)
			}
		})
	}
}

// A JS tool's ask carries the tool's scope, so a person's "always" to it
// approves it alone; a bridge built without one still never asks
// unscoped (a built-in's scope).
func TestBridgeAsksUnderTheToolsScope(t *testing.T) {
	t.Parallel()
	scope := permission.Scope{Tool: "jira", Source: "js", File: "/src/p/.opencode/tool/jira.ts"}
	for _, tt := range []struct {
		name string
		b    *Bridge
		want permission.Scope
	}{
		{"a tool's bridge asks under its scope", &Bridge{Tool: "jira", Scope: scope}, scope},
		{"a bridge without a scope asks under its tool id", &Bridge{Tool: "jira"}, permission.Scope{Tool: "jira"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got permission.Request
			tt.b.Context = runtime.NewContext(runtime.Context{SessionID: "s1"}, nil, func(_ context.Context, req permission.Request) error {
				got = req
				return nil
			})
			if _, err := tt.b.Handle(context.Background(), noPause{}, "ask", json.RawMessage(`{"permission":"bash","patterns":["*"],"always":["*"]}`)); err != nil {
				t.Fatal(err)
			}
			if got.Scope != tt.want {
				t.Errorf("asked under %+v, want %+v", got.Scope, tt.want)
			}
		})
	}
}
