package hostfns

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/toolhost/toolhost/runtime/permission"
)

// NameCall is the host function through which guests reach the functions
// an embedder added (Define): one import for all of them, so a guest
// built once runs on every host, and a function the host lacks is an
// answer the guest can handle, not a module that fails to load.
const NameCall = "call"

// CallRequest is the JSON a guest passes to call: the function's name and
// its argument, which Define's Func decodes strictly into its A.
type CallRequest struct {
	Fn   string          `json:"fn"`
	Args json.RawMessage `json:"args,omitempty"`
}

// CallReply is the JSON call returns: Value, the function's result, or
// Error, a message for the model, with Kind saying why.
type CallReply struct {
	Value json.RawMessage `json:"value,omitempty"`
	Error string          `json:"error,omitempty"`
	// Kind is "denied", "rejected" or "corrected" (permission.Kind) when
	// the permission engine refused the call, or one of KindUnknown,
	// KindInvalid, KindUnavailable and KindFailed.
	Kind string `json:"kind,omitempty"`
}

// The kinds of CallReply besides the permission refusals.
const (
	// KindUnknown: the host defines no function of that name.
	KindUnknown = "unknown"
	// KindInvalid: the request or the argument is not the JSON the
	// function takes; it did not run.
	KindInvalid = "invalid"
	// KindUnavailable: called outside execute (description, schema, a
	// script tool's file loading), where there is no call to check.
	KindUnavailable = "unavailable"
	// KindFailed: the function ran and returned an error (or panicked).
	KindFailed = "failed"
)

// runCall is call: it finds the embedder's function, decodes the
// argument, asks the permission engine for the function's Permission
// with the patterns the argument gives — every call, under the calling
// tool's scope, with the guest's clock stopped while a person decides —
// and only then runs it.
//
//	(import "extism:host/user" "call" (func (param i64) (result i64)))
//
// Parameter: offset of a block holding CallRequest JSON. Result: offset
// of a new block holding CallReply JSON. Every refusal and failure is an
// answer; only a cancelled call (or a broken asker) aborts the guest.
func runCall(ctx context.Context, c *Call, raw []byte) (any, error) {
	var req CallRequest
	if err := json.Unmarshal(raw, &req); err != nil {
		return CallReply{Kind: KindInvalid, Error: fmt.Sprintf(`call: the request is not {"fn": …, "args": …} JSON: %v`, err)}, nil
	}
	d, ok := c.Funcs.lookup(req.Fn)
	if !ok {
		have := "none"
		if names := c.Funcs.Names(); len(names) > 0 {
			have = strings.Join(names, ", ")
		}
		return CallReply{Kind: KindUnknown, Error: fmt.Sprintf("call %q: this host has no such function (it has: %s)", req.Fn, have)}, nil
	}
	if c.Context == nil {
		return CallReply{Kind: KindUnavailable, Error: fmt.Sprintf("call %q: host functions are only available while executing a call", req.Fn)}, nil
	}
	patterns, run, err := d.bind(req.Args)
	if err != nil {
		return CallReply{Kind: KindInvalid, Error: fmt.Sprintf("call %q: the argument is not what it takes: %v", req.Fn, err)}, nil
	}
	err = c.askPermission(ctx, permission.Request{
		Permission: d.permission,
		Patterns:   patterns,
		Always:     patterns,
		Metadata:   map[string]any{"hostFunction": d.name},
		Scope:      c.scope(),
	})
	if err != nil {
		kind := permission.Kind(err)
		if kind == "" {
			return nil, err
		}
		return CallReply{Kind: string(kind), Error: err.Error()}, nil
	}
	v, err := safeRun(ctx, run, c.caller())
	if err != nil {
		// The error may echo what the guest sent: escaped like a guest's log line.
		c.logger().WarnContext(ctx, "host function failed", "fn", d.name, "tool", c.Tool, "err", CleanLogMessage(err.Error()))
		return CallReply{Kind: KindFailed, Error: fmt.Sprintf("%s: %v", d.name, err)}, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return CallReply{Kind: KindFailed, Error: fmt.Sprintf("%s: its result is not JSON: %v", d.name, err)}, nil
	}
	return CallReply{Value: b}, nil
}

// safeRun runs an embedder's function, turning a panic into an error: a
// bug in one host function must not take the host and every other call
// down.
func safeRun(ctx context.Context, run func(context.Context, Caller) (any, error), caller Caller) (v any, err error) {
	defer func() {
		if p := recover(); p != nil {
			v, err = nil, fmt.Errorf("panic: %v", p)
		}
	}()
	return run(ctx, caller)
}

// caller describes the call for an embedder's function.
func (c *Call) caller() Caller {
	s := c.scope()
	out := Caller{Tool: c.Tool, Source: s.Source, File: s.File}
	if tc := c.Context; tc != nil {
		out.SessionID, out.CallID, out.Directory, out.Worktree = tc.SessionID, tc.CallID, tc.Directory, tc.Worktree
	}
	return out
}
