package js

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"sync"

	"github.com/toolhost/toolhost/hostfns"
	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/permission"
)

// Bridge answers a JS tool's host calls for one call. Every op is checked
// here, on the host: the guest holds no capability of its own.
//
//	log        hostfns.LogEntry {level, message} → null (hostfns: escaped, capped, the same attributes as a wasm guest's)
//	fetch      hostfns.FetchRequest {url, method, headers, body} → hostfns.FetchReply (base64 bodies; hostfns: the HTTP policy)
//	metadata   {title, metadata}             → null; the caller sees it live (hostfns)
//	ask        {permission, patterns, always, metadata} → null, or the refusal as an error (hostfns)
//	call       {fn, args}                    → hostfns.CallReply: an embedder's host function, under its permission
//	sample     runtime.SampleRequest         → hostfns.SampleReply: the client's model, under the "sampling" grant (hostfns)
//	elicit     runtime.ElicitRequest         → hostfns.ElicitReply: a form the person behind the client fills in (hostfns)
//	random     n (≤ 65536)                   → [bytes]
//	url        {url, base}                   → parts of the parsed URL
//	fs.read / fs.write / fs.exists / fs.readdir / fs.mkdir {path[, data]} → inside allowed_paths only
//
// The ops every guest kind shares are hostfns' (Script); the Bridge
// answers only the JS runtime's own (random, url, fs).
type Bridge struct {
	Tool string
	// Scope is the tool an "always" to its ask approves for (its id,
	// source and file); zero is taken as Scope{Tool: Tool}, never
	// unscoped, so a JS tool's ask cannot approve a built-in tool.
	Scope   permission.Scope
	Context *runtime.Context
	Log     *slog.Logger
	HTTP    hostfns.HTTPPolicy
	// Paths maps host directories ("ro:" prefix for read-only, absolute)
	// to guest paths, as plugins resolve allowed_paths.
	Paths map[string]string
	// Funcs are the embedder's host functions, which call reaches; nil
	// has none.
	Funcs *hostfns.Set
	// Sampling grants sample (the tool's "sampling": true); false
	// refuses it, naming the config key to set.
	Sampling bool

	mu      sync.Mutex
	permErr error // the last refusal of ask, returned if the tool then fails
}

// PermissionError is the refusal the tool's ask got, if any.
func (b *Bridge) PermissionError() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.permErr
}

// maxFileBytes bounds one fs.read (the result crosses as JSON).
const maxFileBytes = 32 << 20

// Handle answers one op.
func (b *Bridge) Handle(ctx context.Context, s Pauser, op string, arg json.RawMessage) (any, error) {
	switch op {
	case "random":
		var n int
		if err := json.Unmarshal(arg, &n); err != nil || n < 0 || n > 65536 {
			return nil, errors.New("random: want a byte count from 0 to 65536")
		}
		buf := make([]byte, n)
		rand.Read(buf)
		out := make([]int, n)
		for i, c := range buf {
			out[i] = int(c)
		}
		return out, nil
	case "url":
		return parseURL(arg)
	case "fs.read", "fs.write", "fs.exists", "fs.readdir", "fs.mkdir":
		return b.file(op, arg)
	}
	if v, ok, err := b.shared(ctx, s, op, arg); ok {
		return v, err
	}
	return nil, fmt.Errorf("unknown host call %q", op)
}

// shared answers the ops every guest kind shares — log, fetch, ask,
// metadata, sample, elicit and call, the embedder's host functions — with hostfns' one
// implementation; ok is false for the ops the Bridge answers itself. s
// (nil while a Python tool's last output is logged) is the script's
// clock: a person's answer does not count against it, and fetch waits no
// longer than it has left.
func (b *Bridge) shared(ctx context.Context, s Pauser, op string, arg json.RawMessage) (v any, ok bool, err error) {
	c := &hostfns.Call{Tool: b.Tool, Context: b.Context, Logger: b.Log, Scope: b.Scope, HTTP: b.HTTP, Funcs: b.Funcs,
		Sampling: b.Sampling, ConfigKey: b.configKey()}
	if s != nil {
		c.Pause, c.Remaining = s.Pause, s.Remaining
	}
	v, ok, err = hostfns.Script(ctx, c, op, arg)
	if perm := c.PermissionError(); perm != nil {
		b.mu.Lock()
		b.permErr = perm
		b.mu.Unlock()
	}
	return v, ok, err
}

func parseURL(arg json.RawMessage) (any, error) {
	var in struct{ URL, Base string }
	if err := json.Unmarshal(arg, &in); err != nil {
		return nil, err
	}
	u, err := url.Parse(in.URL)
	if err == nil && in.Base != "" {
		var base *url.URL
		if base, err = url.Parse(in.Base); err == nil {
			if !base.IsAbs() {
				return nil, fmt.Errorf("invalid base URL %q", in.Base)
			}
			u = base.ResolveReference(u)
		}
	}
	if err != nil || !u.IsAbs() {
		return nil, fmt.Errorf("invalid URL %q", in.URL)
	}
	pass, _ := u.User.Password()
	path := u.EscapedPath()
	if path == "" && u.Host != "" {
		path = "/"
	}
	hash := ""
	if u.Fragment != "" {
		hash = "#" + u.EscapedFragment()
	}
	search := ""
	if u.RawQuery != "" {
		search = "?" + u.RawQuery
	}
	return map[string]string{"protocol": u.Scheme + ":", "username": u.User.Username(), "password": pass,
		"hostname": strings.ToLower(u.Hostname()), "port": u.Port(), "pathname": path, "search": search, "hash": hash}, nil
}

var _ Ops = (*Bridge)(nil)
