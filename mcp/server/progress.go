package server

import (
	"context"
	"log/slog"
	"sync"

	sdk "github.com/toolhost/toolhost/internal/third_party/gosdk/mcp"
)

// progress forwards a tool's live metadata (tc.Metadata) to the client as
// notifications/progress, when the client asked for progress by sending a
// progress token. Each update counts one step; the title is the message and
// the metadata rides in _meta under MetaMetadataKey, so a client can show a
// running command's output as it grows.
//
// The target can change while the call runs: a call that waits for a
// person's answer over the multi-round-trip protocol is resumed by a new
// request with its own progress token, and updates go to whichever request
// is being served; between requests they are dropped.
type progress struct {
	log *slog.Logger

	mu     sync.Mutex
	ctx    context.Context // the request being served; nil between requests
	ss     *sdk.ServerSession
	token  any
	steps  float64 // the last progress sent
	sent   bool    // whether one was
	failed bool
}

func newProgress(ss *sdk.ServerSession, token any, log *slog.Logger) *progress {
	return &progress{log: log, ss: ss, token: token}
}

// attach sends further updates in the context of the request ctx.
func (p *progress) attach(ctx context.Context) {
	p.mu.Lock()
	p.ctx = ctx
	p.mu.Unlock()
}

// retarget sends further updates to another request of the same call.
func (p *progress) retarget(ctx context.Context, ss *sdk.ServerSession, token any) {
	p.mu.Lock()
	p.ctx, p.ss, p.token = ctx, ss, token
	p.mu.Unlock()
}

// detach drops updates until the next attach.
func (p *progress) detach() {
	p.mu.Lock()
	p.ctx = nil
	p.mu.Unlock()
}

// update is the call's runtime.Call.OnMetadata.
func (p *progress) update(title string, meta map[string]any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ctx == nil || p.token == nil || p.ss == nil || p.failed {
		return
	}
	// A tool that reports numbers ({"progress": 50, "total": 100}) is
	// reported as it says, as long as progress goes up, as MCP requires;
	// otherwise each update counts one step.
	total := 0.0
	if v, ok := number(meta["progress"]); ok && v >= 0 && (!p.sent || v > p.steps) {
		p.steps = v
		if t, ok := number(meta["total"]); ok && t >= v {
			total = t
		}
	} else {
		p.steps++
	}
	p.sent = true
	params := &sdk.ProgressNotificationParams{ProgressToken: p.token, Progress: p.steps, Total: total, Message: title}
	if len(meta) > 0 {
		params.Meta = sdk.Meta{MetaMetadataKey: meta}
	}
	// Sent under the lock so the client sees steps in order.
	if err := p.ss.NotifyProgress(p.ctx, params); err != nil {
		// A client that went away stops getting updates; the call goes on.
		p.failed = true
		p.log.Debug("progress notification not sent; no more for this call", "err", err)
	}
}

// number is v as a float when it is a JSON number.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	}
	return 0, false
}
