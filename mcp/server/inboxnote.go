package server

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	sdk "github.com/toolhost/toolhost/internal/third_party/gosdk/mcp"

	"github.com/toolhost/toolhost/runtime/permission"
)

// While a call's question waits in the permission inbox, the client is
// told so, with the inbox's URL, in the two messages MCP clients show
// their user: a progress notification (when the call carries a progress
// token) and a log message (notifications/message). What each client does
// with them differs (docs/inbox.md): Claude Code and Qwen Code show the
// progress message under the running call; OpenCode 1.18 shows neither but
// writes the log message to its log ("MCP server log"), and, as its MCP
// calls time out after 60 s unless progress arrives, the progress sent
// every inboxHeartbeat keeps the call alive while the person answers.
//
// The URL carries no token: the model may read what the client shows, and
// a command it ran could answer its own question with the token. The
// person opens the page with `toolhost inbox`, or signed in already.

// inboxHeartbeat is how often a waiting call's progress is repeated: well
// inside the 60 s after which OpenCode's MCP calls time out without it.
// TOOLHOST_INBOX_HEARTBEAT (a Go duration, at least 100ms) sets it for a
// client whose calls time out sooner, and lets the end-to-end test prove
// the repeats outlast OpenCode's timeout in seconds rather than half a
// minute.
var inboxHeartbeat = heartbeatFromEnv(os.Getenv("TOOLHOST_INBOX_HEARTBEAT"), 20*time.Second)

// heartbeatFromEnv is v as a duration, or def when v is empty, not a
// duration or below 100ms (a repeat that often would flood the client).
func heartbeatFromEnv(v string, def time.Duration) time.Duration {
	if d, err := time.ParseDuration(v); err == nil && d >= 100*time.Millisecond {
		return d
	}
	return def
}

// inboxLogger names toolhost's messages in the client's log.
const inboxLogger = "toolhost"

// inboxNote is how a call tells its client that a question waits.
type inboxNote struct {
	ss  *sdk.ServerSession
	p   *progress
	url string
}

type inboxNoteKey struct{}

// withInboxNote makes the call's waits in the inbox known to the client
// of ss, through p (the call's progress) and log messages; url is the
// inbox's, when it has one.
func withInboxNote(ctx context.Context, ss *sdk.ServerSession, p *progress, inbox permission.Asker) context.Context {
	n := &inboxNote{ss: ss, p: p}
	if u, ok := inbox.(interface{ URL() string }); ok {
		n.url = u.URL()
	}
	return context.WithValue(ctx, inboxNoteKey{}, n)
}

// askInbox parks the question in the inbox, telling the client while it
// waits.
func askInbox(ctx context.Context, inbox permission.Asker, req permission.Request) (permission.Reply, error) {
	if n, ok := ctx.Value(inboxNoteKey{}).(*inboxNote); ok {
		stop := n.waiting(ctx, req)
		defer stop()
	}
	return inbox.Ask(ctx, req)
}

// waitingMessage is what the client shows while req waits.
func waitingMessage(req permission.Request, url string, waited time.Duration) string {
	var b strings.Builder
	b.WriteString("Waiting for your answer in the toolhost permission inbox: ")
	b.WriteString(req.Permission)
	if len(req.Patterns) > 0 {
		fmt.Fprintf(&b, " %s", printable(clip(strings.Join(req.Patterns, ", "))))
	}
	if url != "" {
		fmt.Fprintf(&b, " — open %s (or run `toolhost inbox`)", url)
	}
	if waited > 0 {
		fmt.Fprintf(&b, "; waiting %s", waited.Round(time.Second))
	}
	return b.String()
}

// waiting tells the client now and every inboxHeartbeat until stop. The
// messages go out from a goroutine of their own: the question is parked
// whether or not the client reads its notifications (a client that reads
// nothing while a call runs must not hold the question back).
func (n *inboxNote) waiting(ctx context.Context, req permission.Request) (stop func()) {
	done := make(chan struct{})
	go func() {
		msg := waitingMessage(req, n.url, 0)
		if n.ss != nil {
			// Best effort, as every notification: a client that went away
			// misses it, and the question waits all the same.
			_ = n.ss.LogByDefault(ctx, &sdk.LoggingMessageParams{Level: "warning", Logger: inboxLogger, Data: msg})
		}
		if n.p == nil {
			return
		}
		n.p.update(msg, nil)
		start := time.Now()
		t := time.NewTicker(inboxHeartbeat)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				n.p.update(waitingMessage(req, n.url, time.Since(start)), nil)
			case <-done:
				return
			case <-ctx.Done():
				return
			}
		}
	}()
	return func() { close(done) }
}
