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
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/toolhost/toolhost/internal/fspath"
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
	Tool    string
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
	err := b.Context.Ask(ctx, permission.Request{Permission: req.Permission, Patterns: req.Patterns, Always: req.Always, Metadata: req.Metadata})
	resume()
	if err != nil && permission.Kind(err) != "" {
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

// file runs an fs op on a path inside allowed_paths, through an os.Root
// so no link leads out of the granted directory.
func (b *Bridge) file(op string, arg json.RawMessage) (any, error) {
	var in struct{ Path, Data string }
	if err := json.Unmarshal(arg, &in); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	write := op == "fs.write" || op == "fs.mkdir"
	dir, rel, err := b.resolve(in.Path, write)
	if err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", op, in.Path, err)
	}
	defer root.Close()
	switch op {
	case "fs.read":
		f, err := openRegular(root, rel, os.O_RDONLY)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", in.Path, err)
		}
		defer f.Close()
		// Bounded by the read itself, not a Stat before it: the file may
		// grow in between.
		data, err := io.ReadAll(io.LimitReader(f, maxFileBytes+1))
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", in.Path, err)
		}
		if len(data) > maxFileBytes {
			return nil, fmt.Errorf("read %s: over %d bytes", in.Path, maxFileBytes)
		}
		return base64.StdEncoding.EncodeToString(data), nil
	case "fs.write":
		data, err := base64.StdEncoding.DecodeString(in.Data)
		if err != nil {
			return nil, err
		}
		f, err := openRegular(root, rel, os.O_WRONLY|os.O_CREATE)
		if err != nil {
			return nil, fmt.Errorf("write %s: %w", in.Path, err)
		}
		defer f.Close()
		if err := f.Truncate(0); err != nil {
			return nil, fmt.Errorf("write %s: %w", in.Path, err)
		}
		if _, err := f.Write(data); err != nil {
			return nil, fmt.Errorf("write %s: %w", in.Path, err)
		}
		if err := f.Close(); err != nil {
			return nil, fmt.Errorf("write %s: %w", in.Path, err)
		}
		return nil, nil
	case "fs.exists":
		_, err := root.Stat(rel)
		return err == nil, nil
	case "fs.mkdir":
		if err := root.MkdirAll(rel, 0o755); err != nil {
			return nil, fmt.Errorf("mkdir %s: %w", in.Path, err)
		}
		return nil, nil
	default: // fs.readdir
		f, err := root.OpenFile(rel, os.O_RDONLY|fspath.ONonblock, 0)
		if err != nil {
			return nil, fmt.Errorf("readdir %s: %w", in.Path, err)
		}
		defer f.Close()
		ents, err := f.ReadDir(-1)
		if err != nil {
			return nil, fmt.Errorf("readdir %s: %w", in.Path, err)
		}
		names := make([]string, 0, len(ents))
		for _, e := range ents {
			names = append(names, e.Name())
		}
		sort.Strings(names)
		return names, nil
	}
}

// errNotRegular refuses FIFOs, devices and sockets: reading or writing
// one can block the host call — where the script's time limit cannot stop
// it — or never end.
var errNotRegular = errors.New("not a regular file; a JS tool reads and writes only regular files")

// openRegular is fspath.OpenRegular with the JS tools' own refusal.
func openRegular(root *os.Root, rel string, flag int) (*os.File, error) {
	f, err := fspath.OpenRegular(root, rel, flag)
	if errors.Is(err, fspath.ErrNotRegular) {
		return nil, errNotRegular
	}
	return f, err
}

// resolve finds the granted directory holding p (a guest path of
// allowed_paths, or a host path inside a granted directory; relative paths
// are taken from the call's directory) and p relative to it.
func (b *Bridge) resolve(p string, write bool) (dir, rel string, err error) {
	if p == "" {
		return "", "", errors.New("empty path")
	}
	if !filepath.IsAbs(p) && b.Context != nil && b.Context.Directory != "" {
		p = filepath.Join(b.Context.Directory, p)
	}
	p = filepath.Clean(p)
	// The most specific grant decides, as nested mounts do: with "/proj"
	// writable and "ro:/proj/secret", /proj/secret/x is read-only. Of two
	// grants equally specific, the read-only one wins.
	best, bestLen, bestRO, bestRel := "", -1, false, ""
	for h, guest := range b.Paths {
		host, ro := strings.CutPrefix(h, "ro:")
		for _, base := range []string{filepath.Clean(guest), host} {
			r, ok := within(base, p)
			if !ok {
				continue
			}
			if n := len(base); n > bestLen || (n == bestLen && ro && !bestRO) {
				best, bestLen, bestRO, bestRel = host, n, ro, r
			}
		}
	}
	if bestLen >= 0 {
		if write && bestRO {
			return "", "", fmt.Errorf("%s is read-only for this tool (\"ro:\" in wasm.%s.allowed_paths)", p, b.Tool)
		}
		return best, bestRel, nil
	}
	return "", "", fmt.Errorf("%s is outside the tool's allowed_paths; grant its folder in wasm.%s.allowed_paths in the config", p, b.Tool)
}

func within(base, p string) (string, bool) {
	if base == "" || base == "." {
		return "", false
	}
	r, err := filepath.Rel(base, p)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) || filepath.IsAbs(r) {
		return "", false
	}
	return r, true
}

var _ Ops = (*Bridge)(nil)
