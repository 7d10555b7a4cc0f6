package python

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/toolhost/toolhost/hostfns"
	"github.com/toolhost/toolhost/plugins/wasm"
)

// Def is one tool a file defines.
type Def struct {
	ID          string          `json:"id"`
	Function    string          `json:"function"`          // the Python function
	Context     string          `json:"context,omitempty"` // its toolhost.Context parameter, if any
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"schema"` // the args' JSON Schema
	Line        int             `json:"line"`
}

// LoadError is a file that did not load: a syntax error, an exception at
// its top level, an unsupported annotation. Line is 0 when unknown.
type LoadError struct {
	Path, Message string
	Line          int
}

func (e *LoadError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("load %s:%d: %s", e.Path, e.Line, e.Message)
	}
	return fmt.Sprintf("load %s: %s", e.Path, e.Message)
}

// File is a loaded tool file: its tools and the instances waiting to run
// them. It is safe for concurrent calls.
type File struct {
	Path string
	Defs []Def

	src      src
	rt       *Runtime
	poolSize int
	timeout  time.Duration
	funcs    *hostfns.Set // the embedder's host functions (LoadOptions.HostFuncs)

	mu      sync.Mutex
	pools   map[string]chan *instance // idle instances by Sandbox.key
	filling map[string]bool
	closed  bool
}

// LoadOptions say where the runtime and caches live.
type LoadOptions struct {
	Runtime *Runtime
	// CacheDir holds the schema cache ("" derives schemas every load).
	CacheDir string
	// PoolSize bounds the idle instances kept per file and sandbox.
	// Default 1; negative keeps none.
	PoolSize int
	// LoadTimeout bounds starting Python and running the file's top level.
	// Default 30 s.
	LoadTimeout time.Duration
	// HostFuncs are the embedder's host functions the file's tools may
	// call (ctx.call_host); nil: none.
	HostFuncs *hostfns.Set
}

// Load reads the tool file at path and its tools: from the schema cache
// when its content was described before, else by running Python once.
func Load(ctx context.Context, path string, opts LoadOptions) (*File, error) {
	code, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", path, err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	f := &File{Path: path, rt: opts.Runtime, poolSize: opts.PoolSize, timeout: opts.LoadTimeout, funcs: opts.HostFuncs,
		src:   src{path: abs, stem: strings.TrimSuffix(filepath.Base(path), ".py"), code: code},
		pools: map[string]chan *instance{}, filling: map[string]bool{}}
	if f.poolSize == 0 {
		f.poolSize = 1
	}
	if f.timeout <= 0 {
		f.timeout = 30 * time.Second
	}
	cpath := schemaPath(opts.CacheDir, code)
	var c cached
	if !readCached(cpath, &c) {
		c, err = f.describe(ctx)
		if err != nil {
			return nil, err
		}
		writeCached(cpath, c)
	}
	if c.Error != "" {
		return nil, &LoadError{Path: path, Message: c.Error, Line: c.Line}
	}
	f.Defs = c.Defs
	return f, nil
}

// cached is what describing a file found: its tools, or why it does not
// load. Only the guest's own verdicts are cached, never a timeout.
type cached struct {
	Defs  []Def  `json:"defs,omitempty"`
	Error string `json:"error,omitempty"`
	Line  int    `json:"line,omitempty"`
}

func schemaPath(cacheDir string, code []byte) string {
	if cacheDir == "" {
		return ""
	}
	h := sha256.Sum256([]byte(guestKey() + "\x00" + string(code)))
	return filepath.Join(cacheDir, "schemas", hex.EncodeToString(h[:])+".json")
}

func readCached(p string, c *cached) bool {
	if p == "" {
		return false
	}
	b, err := os.ReadFile(p)
	return err == nil && json.Unmarshal(b, c) == nil && (len(c.Defs) > 0 || c.Error != "")
}

func writeCached(p string, c cached) {
	if p == "" || os.MkdirAll(filepath.Dir(p), 0o700) != nil {
		return
	}
	b, _ := json.Marshal(c)
	tmp, err := os.CreateTemp(filepath.Dir(p), filepath.Base(p)+".tmp*")
	if err != nil {
		return
	}
	_, err = tmp.Write(b)
	if cerr := tmp.Close(); err == nil && cerr == nil {
		err = os.Rename(tmp.Name(), p)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
}

// describe runs the file once, with nothing granted, and reads its tools.
func (f *File) describe(ctx context.Context) (cached, error) {
	in, err := f.rt.start(ctx, "describe", f.src, Sandbox{}, f.timeout)
	if err != nil {
		return cached{}, fmt.Errorf("load %s: %w", f.Path, err)
	}
	defer in.cancel(nil)
	m, err := in.next()
	switch {
	case errors.Is(err, errLoadTimeout):
		return cached{}, fmt.Errorf("load %s: its top level ran over %s; move slow work into the tool function", f.Path, f.timeout)
	case err != nil:
		return cached{}, fmt.Errorf("load %s: Python ended: %w\n%s", f.Path, err, lastLines(in.stderr.String(), 5))
	case m.Op == "load_error" && m.Kind != "memory":
		return cached{Error: m.Message, Line: m.Line}, nil
	case m.Op == "describe":
		var c cached
		if err := json.Unmarshal(m.Value, &c.Defs); err != nil || len(c.Defs) == 0 {
			return cached{}, fmt.Errorf("load %s: describe its tools: %v", f.Path, err)
		}
		return c, nil
	}
	return cached{}, fmt.Errorf("load %s: unexpected %q from Python: %s", f.Path, m.Op, m.Message)
}

func lastLines(s string, n int) string {
	ls := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(ls) > n {
		ls = ls[len(ls)-n:]
	}
	return strings.Join(ls, "\n")
}

// Close stops the file's idle instances. Calls in flight finish.
func (f *File) Close(context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
	for k, p := range f.pools {
		drain(p)
		delete(f.pools, k)
	}
	return nil
}

func drain(p chan *instance) {
	for {
		select {
		case in := <-p:
			in.cancel(nil)
		default:
			return
		}
	}
}

// take returns an idle instance started with sb, or starts one and waits
// until the file has loaded in it. The caller refills the pool when its
// call is done (refill), so the next instance does not compete with the
// call for the machine.
func (f *File) take(ctx context.Context, sb Sandbox) (*instance, error) {
	f.mu.Lock()
	p := f.pools[sb.key()]
	f.mu.Unlock()
	if p != nil {
		select {
		case in := <-p:
			// A granted folder replaced since the instance started is
			// followed to its new directory, as plugins' mounts are.
			in.mounts.Refresh()
			return in, nil
		default:
		}
	}
	return f.ready(ctx, sb)
}

// ready starts an instance on sb and waits for its "ready".
func (f *File) ready(ctx context.Context, sb Sandbox) (*instance, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("Python tool stopped: %w", err)
	}
	in, err := f.rt.start(ctx, "call", f.src, sb, f.timeout)
	if err != nil {
		return nil, err
	}
	stop := context.AfterFunc(ctx, func() { in.cancel(context.Cause(ctx)) })
	m, err := in.next()
	stop()
	if ctx.Err() != nil {
		in.cancel(nil)
		return nil, fmt.Errorf("Python tool stopped: %w", ctx.Err())
	}
	if err == nil && m.Op == "ready" {
		in.limit(0, nil)
		return in, nil
	}
	in.cancel(nil)
	switch {
	case errors.Is(err, errLoadTimeout):
		return nil, fmt.Errorf("%s: its top level ran over %s; move slow work into the tool function", f.Path, f.timeout)
	case err != nil:
		if memoryFull(in.mod, in.memMB) {
			return nil, fmt.Errorf("%w: %s: running its top level took all %d MB", wasm.ErrMemoryLimit, f.Path, in.memMB)
		}
		return nil, fmt.Errorf("%s: Python ended: %w\n%s", f.Path, err, lastLines(in.stderr.String(), 5))
	case m.Op == "load_error":
		return nil, &LoadError{Path: f.Path, Message: m.Message, Line: m.Line}
	}
	return nil, fmt.Errorf("%s: unexpected %q from Python", f.Path, m.Op)
}

// refill starts one instance for sb's pool in the background, unless the
// pool is full or being filled; the runtime lets one refill run at a time
// so idle pools never compete with calls for more than one core.
func (f *File) refill(sb Sandbox) {
	if f.poolSize < 0 {
		return
	}
	key := sb.key()
	f.mu.Lock()
	p := f.pools[key]
	if p == nil {
		p = make(chan *instance, f.poolSize)
		f.pools[key] = p
	}
	if f.closed || f.filling[key] || len(p) >= cap(p) {
		f.mu.Unlock()
		return
	}
	f.filling[key] = true
	f.mu.Unlock()
	go func() {
		f.rt.warm <- struct{}{}
		in, err := f.ready(context.Background(), sb)
		<-f.rt.warm
		f.mu.Lock()
		defer f.mu.Unlock()
		f.filling[key] = false
		if err != nil {
			return
		}
		if f.closed {
			in.cancel(nil)
			return
		}
		select {
		case p <- in:
		default:
			in.cancel(nil)
		}
	}()
}

// Warm fills the pool for sb ahead of the first call.
func (f *File) Warm(sb Sandbox) { f.refill(sb) }
