package inbox

import (
	"context"
	"fmt"

	"github.com/toolhost/toolhost/internal/httpguard"
	"github.com/toolhost/toolhost/runtime/permission"
)

// Questions belong to their caller. Behind an MCP server with named
// callers (named tokens, an identity provider; internal/httpguard) a
// question shows what one caller's agent is about to do — its command, its
// diff — and its answer allows it. So a question asked by a named caller's
// call is listed to, and answered by, that caller only. A question of no
// named caller (stdio, a loopback server, the one shared token) is the
// inbox's, as it always was: whoever holds the inbox's token sees it.

// namedCaller is the caller of ctx when it is a named one.
func namedCaller(ctx context.Context) string {
	if c := httpguard.CallerOf(ctx); c != httpguard.SharedCaller {
		return c
	}
	return ""
}

// visibleTo reports whether the request may be seen and answered by the
// caller of ctx.
func visibleTo(ctx context.Context, r Request) bool {
	return r.Caller == "" || r.Caller == namedCaller(ctx)
}

// pendingFor is Pending as the caller of ctx may see it.
func (ib *Inbox) pendingFor(ctx context.Context) []Request {
	all := ib.Pending()
	out := all[:0]
	for _, r := range all {
		if visibleTo(ctx, r) {
			out = append(out, r)
		}
	}
	return out
}

// replyFor is Reply for the caller of ctx: a question it may not see is
// unknown to it.
func (ib *Inbox) replyFor(ctx context.Context, id string, r permission.Reply) error {
	for _, p := range ib.Pending() {
		if p.ID == id && !visibleTo(ctx, p) {
			return fmt.Errorf("reply to %s: %w", id, ErrUnknown)
		}
	}
	return ib.Reply(id, r)
}
