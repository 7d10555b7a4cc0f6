package server_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/toolhost/toolhost/internal/third_party/gosdk/mcp"

	"github.com/toolhost/toolhost/mcp/server"
	"github.com/toolhost/toolhost/runtime/config"
	"github.com/toolhost/toolhost/runtime/permission"
)

// urlInbox is an inbox that holds each question until released, and
// knows its URL as the permission inbox does.
type urlInbox struct {
	url     string
	asked   chan permission.Request
	release chan permission.Reply
}

func (h *urlInbox) URL() string { return h.url }

func (h *urlInbox) Ask(ctx context.Context, req permission.Request) (permission.Reply, error) {
	h.asked <- req
	select {
	case r := <-h.release:
		return r, nil
	case <-ctx.Done():
		return permission.Reply{}, ctx.Err()
	}
}

// messages collects what a client is shown.
type messages struct {
	mu       sync.Mutex
	progress []string
	logs     []string
}

func (m *messages) has(want string, progress bool) (n int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	list := m.logs
	if progress {
		list = m.progress
	}
	for _, s := range list {
		if strings.Contains(s, want) {
			n++
		}
	}
	return n
}

// TestAQuestionWaitingInTheInboxIsShownWithItsURL: while a call of a
// client that cannot elicit waits in the inbox, the client gets a log
// message and progress naming the question and the inbox's URL (without
// its token), and the progress is repeated while it waits, which keeps
// clients that time calls out without progress (OpenCode, 60 s) waiting
// too; the call completes once answered. A client that asked for errors
// only is not sent the warning.
func TestAQuestionWaitingInTheInboxIsShownWithItsURL(t *testing.T) {
	t.Parallel()
	const url = "http://127.0.0.1:27345/"
	tests := []struct {
		name     string
		level    sdk.LoggingLevel // set by the client; "" none
		wantLogs bool
	}{
		{"a client that set no log level is told", "", true},
		{"a client that asked for warnings is told", "warning", true},
		{"a client that asked for errors only is not sent the warning", "error", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ib := &urlInbox{url: url, asked: make(chan permission.Request, 1), release: make(chan permission.Reply, 1)}
			f := serverWith(t, `{"permission": {"bash": {"*": "ask"}}}`, nil, server.Options{AskFallback: config.AskFallbackInbox, Inbox: ib})
			// A test that fails while the call waits still lets it end.
			t.Cleanup(func() {
				select {
				case ib.release <- permission.Reply{Kind: permission.Reject}:
				default:
				}
			})
			var m messages
			ct, st := sdk.NewInMemoryTransports()
			ctx := context.Background()
			if _, err := f.srv.Connect(ctx, st); err != nil {
				t.Fatal(err)
			}
			cs, err := sdk.NewClient(&sdk.Implementation{Name: "opencode", Version: "1.18.33"}, &sdk.ClientOptions{
				ProgressNotificationHandler: func(_ context.Context, r *sdk.ProgressNotificationClientRequest) {
					m.mu.Lock()
					m.progress = append(m.progress, r.Params.Message)
					m.mu.Unlock()
				},
				LoggingMessageHandler: func(_ context.Context, r *sdk.LoggingMessageRequest) {
					s, _ := r.Params.Data.(string)
					m.mu.Lock()
					m.logs = append(m.logs, string(r.Params.Level)+" "+s)
					m.mu.Unlock()
				},
			}).Connect(ctx, ct, &sdk.ClientSessionOptions{ProtocolVersion: protoLegacy}) // the protocol of OpenCode 1.18, Qwen Code 0.15 and Claude Code
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cs.Close() })
			if tt.level != "" {
				if err := cs.SetLoggingLevel(ctx, &sdk.SetLoggingLevelParams{Level: tt.level}); err != nil {
					t.Fatal(err)
				}
			}
			done := make(chan *sdk.CallToolResult, 1)
			go func() {
				params := &sdk.CallToolParams{Name: "bash", Arguments: map[string]any{"command": "echo waited", "description": "echo"}}
				params.SetProgressToken("tok")
				res, err := cs.CallTool(ctx, params)
				if err != nil {
					t.Error(err)
				}
				done <- res
			}()
			select {
			case <-ib.asked:
			case <-time.After(30 * time.Second):
				t.Fatal("the question never reached the inbox")
			}
			waitFor(t, func() bool { return m.has(url, true) >= 3 }, "the URL in three progress messages (the first and two repeats)")
			if m.has("bash echo waited", true) == 0 || m.has("toolhost inbox", true) == 0 {
				t.Errorf("the progress does not name the question and `toolhost inbox`: %q", m.progress)
			}
			if tt.wantLogs {
				waitFor(t, func() bool { return m.has("warning Waiting for your answer", false) == 1 && m.has(url, false) == 1 }, "one warning naming the URL")
			}
			ib.release <- permission.Reply{Kind: permission.Once}
			var res *sdk.CallToolResult
			select {
			case res = <-done:
			case <-time.After(30 * time.Second):
				t.Fatal("the call did not complete after the answer")
			}
			if res == nil || res.IsError || !strings.Contains(text(res), "waited") {
				t.Fatalf("the answered call: %+v", res)
			}
			m.mu.Lock()
			defer m.mu.Unlock()
			if !tt.wantLogs && len(m.logs) > 0 {
				t.Errorf("a client that asked for errors only got %q", m.logs)
			}
			for _, s := range append(m.progress, m.logs...) {
				if strings.Contains(s, "token") {
					t.Errorf("a message carries a token: %q", s)
				}
			}
		})
	}
}

func waitFor(t *testing.T, ok func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
