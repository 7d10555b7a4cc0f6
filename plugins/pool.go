package plugins

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	goruntime "runtime"
	"strings"
	"sync"

	extism "github.com/extism/go-sdk"
	"github.com/tetratelabs/wazero"

	"github.com/toolhost/toolhost/internal/hostfns"
)

// compiled is a module compiled with one set of limits, and its pool of
// instances. An extism.Plugin instance is not safe for concurrent use, so
// every call takes an instance of its own and gives it back when done;
// instances are reused, because instantiating (and running a Go guest's
// runtime initialisation) costs far more than a call.
type compiled struct {
	plugin *extism.CompiledPlugin
	limits limits
	mounts mounts // limits.AllowedPaths, shared by the instances
	module string
	log    *slog.Logger

	mu      sync.Mutex
	idle    []*instance
	active  int  // instances handed out and not yet released
	closed  bool // unloaded: close the runtime once active reaches 0
	maxIdle int
}

// instance is one pooled plugin instance and the buffer its guest's stderr
// goes to (the last lines explain a trap: a Go guest prints its panic).
type instance struct {
	p      *extism.Plugin
	stderr *stderrBuffer
}

func newCompiled(p *extism.CompiledPlugin, l limits, module string, log *slog.Logger) *compiled {
	return &compiled{plugin: p, limits: l, mounts: newMounts(l.AllowedPaths), module: module, log: log, maxIdle: max(4, 2*goruntime.GOMAXPROCS(0))}
}

// get returns an idle instance or makes a new one.
func (c *compiled) get(ctx context.Context) (*instance, error) {
	c.mounts.refresh() // a granted directory replaced since the last call
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, fmt.Errorf("module %s was unloaded", c.module)
	}
	c.active++
	if n := len(c.idle); n > 0 {
		in := c.idle[n-1]
		c.idle = c.idle[:n-1]
		c.mu.Unlock()
		return in, nil
	}
	c.mu.Unlock()
	stderr := &stderrBuffer{max: 2048}
	mc := wazero.NewModuleConfig().WithStderr(stderr)
	if c.mounts.cfg != nil {
		mc = mc.WithFSConfig(c.mounts.cfg)
	}
	for _, kv := range c.limits.Env {
		k, v, _ := strings.Cut(kv, "=")
		mc = mc.WithEnv(k, v)
	}
	p, err := c.plugin.Instance(ctx, extism.PluginInstanceConfig{ModuleConfig: mc})
	if err != nil {
		c.release(nil, false)
		return nil, fmt.Errorf("instantiate %s: %w", c.module, err)
	}
	p.SetLogger(hostfns.ExtismLogger(c.log, c.module))
	p.Config = c.limits.Config
	return &instance{p: p, stderr: stderr}, nil
}

// release gives an instance back. A healthy one returns to the pool;
// one that saw a trap, a timeout or a host-function failure is closed,
// because its memory and its guest runtime's state are unknown. The last
// release after close closes the compiled module, so calls in flight on a
// replaced module finish on the old version.
func (c *compiled) release(in *instance, healthy bool) {
	c.mu.Lock()
	c.active--
	keep := in != nil && healthy && !c.closed && len(c.idle) < c.maxIdle
	if keep {
		in.stderr.Reset()
		c.idle = append(c.idle, in)
	}
	last := c.closed && c.active == 0
	c.mu.Unlock()
	if in != nil && !keep {
		in.p.Close(context.Background())
	}
	if last {
		c.plugin.Close(context.Background())
		c.mounts.close()
	}
}

// close unloads the module: idle instances close now, the compiled module
// when the last call in flight releases its instance.
func (c *compiled) close(ctx context.Context) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	idle := c.idle
	c.idle, c.closed = nil, true
	last := c.active == 0
	c.mu.Unlock()
	for _, in := range idle {
		in.p.Close(ctx)
	}
	if last {
		c.plugin.Close(ctx)
		c.mounts.close()
	}
}

// stderrBuffer keeps the first and the last max bytes a guest writes to
// stderr: the head says what went wrong ("panic: …", "fatal error: out of
// memory"), the tail is where a long goroutine dump ends.
type stderrBuffer struct {
	mu   sync.Mutex
	max  int
	head []byte
	tail bytes.Buffer
}

func (t *stderrBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(p)
	if room := t.max - len(t.head); room > 0 {
		k := min(room, len(p))
		t.head = append(t.head, p[:k]...)
		p = p[k:]
	}
	t.tail.Write(p)
	if extra := t.tail.Len() - t.max; extra > 0 {
		t.tail.Next(extra)
	}
	return n, nil
}

// Head returns the first bytes written, trimmed.
func (t *stderrBuffer) Head() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.head))
}

// Contains reports whether s appears in what was kept.
func (t *stderrBuffer) Contains(s string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return bytes.Contains(t.head, []byte(s)) || bytes.Contains(t.tail.Bytes(), []byte(s))
}

func (t *stderrBuffer) Reset() {
	t.mu.Lock()
	t.head = t.head[:0]
	t.tail.Reset()
	t.mu.Unlock()
}
