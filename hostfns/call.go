package hostfns

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/tetratelabs/wazero/api"

	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/permission"
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
	// HTTP is what http_request and fetch may reach; the zero policy
	// reaches nothing.
	HTTP HTTPPolicy
	// Sampling grants the sample host function (config "sampling": true);
	// false refuses it.
	Sampling bool
	// ConfigKey is where the tool's grants are configured ("wasm.jira"),
	// named in refusals; "" means "wasm.<Tool>".
	ConfigKey string
	// Scope is the tool a person's "always" to this call's ask approves
	// for (permission.Scope): its id, source and file. Zero is taken as
	// Scope{Tool: Tool}: a guest's ask is never unscoped, so it can never
	// approve a built-in tool.
	Scope permission.Scope
	// Pause, when set, is called before the host blocks on a person (ask);
	// the function it returns is called when the answer is in. The plugin
	// host uses it to stop the guest's timeout clock while it waits.
	Pause func() (resume func())
	// Remaining, when set, is the script time the call has left; an HTTP
	// request (fetch) waits no longer. wasm guests need none: their clock
	// cancels the call's context.
	Remaining func() time.Duration
	// Funcs are the embedder's host functions, reached through call; nil
	// has none.
	Funcs *Set
	// Memory is the Extism kernel memory of the instance the call runs
	// on, where guests put the blocks they pass to host functions and
	// read the blocks host functions return.
	Memory Memory

	mu         sync.Mutex
	httpStatus int   // status of the last http_request
	failure    error // first host-function failure
	permErr    error // last permission refusal given to the guest
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

// Memory is an instance's Extism kernel memory: the blocks (offset and
// length) guests pass to host functions and receive from them. Offset 0
// is never a block; it means "none".
type Memory interface {
	// Read returns a copy of the block at offset, or an error when no
	// block starts there.
	Read(offset uint64) ([]byte, error)
	// Write copies b into a new block and returns its offset.
	Write(b []byte) (uint64, error)
	// Free releases the block at offset; 0 and unknown offsets are
	// ignored.
	Free(offset uint64)
}

var errNoMemory = errors.New("no kernel memory attached to the call (the host did not set Call.Memory)")

// readArg reads the guest's argument block at stack[0].
func readArg(c *Call, fn string, stack []uint64) []byte {
	return readBlock(c, fn, stack[0], "argument")
}

func readBlock(c *Call, fn string, off uint64, what string) []byte {
	if c.Memory == nil {
		fail(c, fn, errNoMemory)
	}
	b, err := c.Memory.Read(off)
	if err != nil {
		fail(c, fn, fmt.Errorf("read %s at offset %d: %w", what, off, err))
	}
	return b
}

// reply writes b to a new kernel memory block and returns its offset to
// the guest; nil replies 0.
func reply(c *Call, fn string, stack []uint64, b []byte) {
	if b == nil {
		stack[0] = 0
		return
	}
	if c.Memory == nil {
		fail(c, fn, errNoMemory)
	}
	off, err := c.Memory.Write(b)
	if err != nil {
		fail(c, fn, fmt.Errorf("write reply: %w", err))
	}
	stack[0] = off
}

// Function is one host function as a guest imports it: module
// (Namespace), name and wasm signature, and its implementation, which
// finds its Call with CallFrom. The plugin host registers them with
// wazero's HostModuleBuilder.
type Function struct {
	Namespace string
	Name      string
	Params    []api.ValueType
	Results   []api.ValueType
	Fn        api.GoFunc
}

var (
	i32 = []api.ValueType{api.ValueTypeI32}
	i64 = []api.ValueType{api.ValueTypeI64}
)

// Functions returns every host function toolhost implements: ask,
// metadata, call, sample and elicit (the table, table.go), log, state_get
// and state_set in Namespace; and, in
// EnvNamespace, the Extism kernel functions that reach the outside world
// — http_request, http_status_code, http_headers, log_trace … log_error
// and get_log_level — which the plugin host puts next to its own kernel
// (alloc, load, store, input, output …). The guarded http_request is also
// in HTTPNamespace, for modules built when the host redirected the import
// there. The set is the same for every module: a module that imports a
// function not provided fails to instantiate, and is reported as such.
func Functions() []Function {
	user := func(name string, fn api.GoFunc) Function {
		return Function{Namespace: Namespace, Name: name, Params: i64, Results: i64, Fn: fn}
	}
	env := func(name string, params, results []api.ValueType, fn api.GoFunc) Function {
		return Function{Namespace: EnvNamespace, Name: name, Params: params, Results: results, Fn: fn}
	}
	fns := []Function{
		user(NameStateGet, stateGet),
		user(NameStateSet, stateSet),
		env(NameHTTPRequest, []api.ValueType{api.ValueTypeI64, api.ValueTypeI64}, i64, httpRequest),
		env(NameHTTPStatusCode, nil, i32, httpStatusCode),
		env(NameHTTPHeaders, nil, i64, httpHeaders),
		env(NameGetLogLevel, nil, i32, getLogLevel),
	}
	for _, e := range table {
		if e.guests&wasmGuests != 0 {
			fns = append(fns, user(e.name, wasmFunc(e)))
		}
	}
	for _, l := range extismLevels {
		fns = append(fns, env(l.name, i64, nil, extismLog(l.name, l.level)))
	}
	h := env(NameHTTPRequest, []api.ValueType{api.ValueTypeI64, api.ValueTypeI64}, i64, httpRequest)
	h.Namespace = HTTPNamespace
	return append(fns, h)
}
