package hostfns

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	extism "github.com/extism/go-sdk"

	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/session"
)

// Call is what the host functions know about the call in progress. The
// plugin host builds one per call and attaches it with WithCall.
type Call struct {
	// Tool is the tool id ("jira_create"); it names the state namespace and
	// tags log entries.
	Tool string
	// Context is the call's runtime context; nil while the host reads a
	// module's description and schema, when only log is available.
	Context *runtime.Context
	// Logger receives guest log entries; nil discards them.
	Logger *slog.Logger
	// State keeps the tool state of calls without a session id (a one-shot
	// `toolhost call`), which must not outlive the host in the shared
	// session store under a made-up id; the plugin host passes one
	// session.Memory for its life. Calls with a session id use
	// Context.Store. Nil: session-less calls have no state, and
	// state_get/state_set abort the guest saying so.
	State session.Store
	// HTTP is what http_request may reach; the zero policy reaches nothing.
	HTTP HTTPPolicy
	// Pause, when set, is called before the host blocks on a person (ask);
	// the function it returns is called when the answer is in. The plugin
	// host uses it to stop the guest's timeout clock while it waits.
	Pause func() (resume func())

	mu      sync.Mutex
	failure error // first host-function failure
	permErr error // last permission refusal given to the guest
}

type callKey struct{}

// WithCall returns ctx carrying c, for Plugin.CallWithContext.
func WithCall(ctx context.Context, c *Call) context.Context {
	return context.WithValue(ctx, callKey{}, c)
}

// CallFrom returns the Call attached to ctx.
func CallFrom(ctx context.Context) (*Call, bool) {
	c, ok := ctx.Value(callKey{}).(*Call)
	return c, ok
}

// Failure returns the first host-function failure of the call, which
// aborted the guest; nil if none. The instance that saw it must not be
// reused.
func (c *Call) Failure() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.failure
}

// PermissionError returns the last permission refusal (denied, rejected or
// corrected) that ask reported to the guest, so the host can return the
// typed error when the guest gives up because of it.
func (c *Call) PermissionError() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.permErr
}

func (c *Call) logger() *slog.Logger {
	if c.Logger != nil {
		return c.Logger
	}
	if c.Context != nil && c.Context.Logger != nil {
		return c.Context.Logger
	}
	return slog.New(slog.DiscardHandler)
}

// fail records err and aborts the guest. Extism turns a panic in a host
// function into an error returned by the call.
func fail(c *Call, fn string, err error) {
	err = fmt.Errorf("host function %s: %w", fn, err)
	if c != nil {
		c.mu.Lock()
		if c.failure == nil {
			c.failure = err
		}
		c.mu.Unlock()
	}
	panic(err)
}

var errNoCall = errors.New("called outside a toolhost call (the host did not attach hostfns.WithCall)")

// callOf returns the call of ctx or aborts the guest.
func callOf(ctx context.Context, fn string) *Call {
	c, ok := CallFrom(ctx)
	if !ok {
		fail(nil, fn, errNoCall)
	}
	return c
}

// readArg reads the guest's argument block at stack[0].
func readArg(c *Call, fn string, p *extism.CurrentPlugin, stack []uint64) []byte {
	b, err := p.ReadBytes(stack[0])
	if err != nil {
		fail(c, fn, fmt.Errorf("read argument at offset %d: %w", stack[0], err))
	}
	return b
}

// reply writes b to a new Extism memory block and returns its offset to the
// guest; nil replies 0.
func reply(c *Call, fn string, p *extism.CurrentPlugin, stack []uint64, b []byte) {
	if b == nil {
		stack[0] = 0
		return
	}
	off, err := p.WriteBytes(b)
	if err != nil {
		fail(c, fn, fmt.Errorf("write reply: %w", err))
	}
	stack[0] = off
}

// Functions returns every toolhost host function, for
// extism.NewCompiledPlugin, including the guarded http_request in
// HTTPNamespace (see httpRequest). The set is the same for every module: a module
// that imports a function not listed here fails to instantiate, and is
// reported as such.
func Functions() []extism.HostFunction {
	i64 := []extism.ValueType{extism.ValueTypeI64}
	fns := []extism.HostFunction{
		extism.NewHostFunctionWithStack(NameAsk, ask, i64, i64),
		extism.NewHostFunctionWithStack(NameMetadata, metadata, i64, i64),
		extism.NewHostFunctionWithStack(NameLog, logEntry, i64, i64),
		extism.NewHostFunctionWithStack(NameStateGet, stateGet, i64, i64),
		extism.NewHostFunctionWithStack(NameStateSet, stateSet, i64, i64),
	}
	for i := range fns {
		fns[i].SetNamespace(Namespace)
	}
	h := extism.NewHostFunctionWithStack(NameHTTPRequest, httpRequest, []extism.ValueType{extism.ValueTypeI64, extism.ValueTypeI64}, i64)
	h.SetNamespace(HTTPNamespace)
	return append(fns, h)
}
