package jstool

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"strings"
	"sync"

	"github.com/toolhost/toolhost/internal/hostfns"
	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/permission"
)

// Bridge answers a JS tool's host calls for one call. Every op is checked
// here, on the host: the guest holds no capability of its own.
//
//	log        {level, msg}                  → null
//	random     n (≤ 65536)                   → [bytes]
//	url        {url, base}                   → parts of the parsed URL
//	fetch      {url, method, headers, body}  → {status, headers, body} (base64 bodies); HTTP policy
//	metadata   {title, metadata}             → null; the caller sees it live
//	ask        {permission, patterns, always, metadata} → null, or the refusal as an error
//	fs.read / fs.write / fs.exists / fs.readdir / fs.mkdir {path[, data]} → inside allowed_paths only
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
	// Source names the kind of tool in its log lines ("js" when empty).
	Source string

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
	case "log":
		var m struct{ Level, Msg string }
		json.Unmarshal(arg, &m)
		lvl := map[string]slog.Level{"debug": slog.LevelDebug, "warn": slog.LevelWarn, "error": slog.LevelError}[m.Level]
		if b.Log != nil {
			src := b.Source
			if src == "" {
				src = "js"
			}
			b.Log.Log(ctx, lvl, m.Msg, "tool", b.Tool, "source", src)
		}
		return nil, nil
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
	case "fetch":
		ctx, cancel := context.WithTimeout(ctx, s.Remaining())
		defer cancel()
		return b.fetch(ctx, arg)
	case "metadata":
		var m struct {
			Title    string         `json:"title"`
			Metadata map[string]any `json:"metadata"`
		}
		if err := json.Unmarshal(arg, &m); err != nil {
			return nil, fmt.Errorf("metadata: %w", err)
		}
		if b.Context != nil {
			b.Context.Metadata(m.Title, m.Metadata)
		}
		return nil, nil
	case "ask":
		return nil, b.ask(ctx, s, arg)
	case "fs.read", "fs.write", "fs.exists", "fs.readdir", "fs.mkdir":
		return b.file(op, arg)
	}
	return nil, fmt.Errorf("unknown host call %q", op)
}

func (b *Bridge) ask(ctx context.Context, s Pauser, arg json.RawMessage) error {
	var req hostfns.AskRequest
	if err := json.Unmarshal(arg, &req); err != nil {
		return fmt.Errorf("ask: want {permission, patterns, always, metadata}: %w", err)
	}
	if req.Permission == "" {
		return errors.New(`ask: "permission" is required`)
	}
	if req.Patterns == nil {
		req.Patterns = []string{}
	}
	if b.Context == nil {
		return &permission.RejectedError{Permission: req.Permission}
	}
	resume := s.Pause()
	scope := b.Scope
	if scope.IsZero() {
		scope = permission.Scope{Tool: b.Tool}
	}
	err := b.Context.Ask(ctx, permission.Request{Permission: req.Permission, Patterns: req.Patterns, Always: req.Always, Metadata: req.Metadata, Scope: scope})
	resume()
	if permission.IsPermissionError(err) {
		b.mu.Lock()
		b.permErr = err
		b.mu.Unlock()
	}
	return err
}

func (b *Bridge) fetch(ctx context.Context, arg json.RawMessage) (any, error) {
	var req struct {
		hostfns.HTTPRequest
		Body string `json:"body"`
	}
	if err := json.Unmarshal(arg, &req); err != nil {
		return nil, fmt.Errorf("fetch: %w", err)
	}
	body, err := base64.StdEncoding.DecodeString(req.Body)
	if err != nil {
		return nil, fmt.Errorf("fetch: body: %w", err)
	}
	p := b.HTTP
	if p.ConfigKey == "" {
		p.ConfigKey = "wasm." + b.Tool
	}
	var rd io.Reader
	if len(body) > 0 {
		rd = bytes.NewReader(body)
	}
	status, hdr, out, err := p.DoHeaders(ctx, req.HTTPRequest, rd)
	if err != nil {
		return nil, fmt.Errorf("fetch %s: %w", req.URL, err)
	}
	headers := map[string]string{}
	for k, v := range hdr {
		headers[strings.ToLower(k)] = strings.Join(v, ", ")
	}
	return map[string]any{"status": status, "headers": headers, "body": base64.StdEncoding.EncodeToString(out)}, nil
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
