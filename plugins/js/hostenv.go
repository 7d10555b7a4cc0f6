package js

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// The engine's "env" imports, as quickjs-wasi's glue provides them:
//
//	host_call(name_ptr, name_len, this, argc, argv) -> JSValue* or 0
//	host_interrupt() -> 1 to stop the running script
//	host_promise_rejection(promise, reason, is_handled)
//	host_module_normalize(base, name) -> char* or 0
//	host_module_load(name, out_len) -> char* or 0
//	host_get_timezone_offset(hi, lo) -> seconds east of UTC
//
// Every call into a VM carries a *session in its context; these functions
// find the VM and the call's limits there.
const (
	envHostCall       = "host_call"
	envInterrupt      = "host_interrupt"
	envRejection      = "host_promise_rejection"
	envModuleNorm     = "host_module_normalize"
	envModuleLoad     = "host_module_load"
	envTimezoneOffset = "host_get_timezone_offset"
)

func instantiateEnv(ctx context.Context, rt wazero.Runtime) error {
	i32 := api.ValueTypeI32
	b := rt.NewHostModuleBuilder("env")
	b.NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(hostCall), []api.ValueType{i32, i32, i32, i32, i32}, []api.ValueType{i32}).Export(envHostCall)
	b.NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(hostInterrupt), nil, []api.ValueType{i32}).Export(envInterrupt)
	b.NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(hostRejection), []api.ValueType{i32, i32, i32}, nil).Export(envRejection)
	b.NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(hostNoModule), []api.ValueType{i32, i32}, []api.ValueType{i32}).Export(envModuleNorm)
	b.NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(hostNoModule), []api.ValueType{i32, i32}, []api.ValueType{i32}).Export(envModuleLoad)
	b.NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(hostUTC), []api.ValueType{i32, i32}, []api.ValueType{i32}).Export(envTimezoneOffset)
	_, err := b.Instantiate(ctx)
	return err
}

// session is one use of a VM: loading a bundle or running a call.
type session struct {
	vm *vm
	// handle answers a host op; nil refuses every op.
	handle func(ctx context.Context, op string, arg json.RawMessage) (any, error)

	mu       sync.Mutex
	deadline time.Time // zero: none
	paused   time.Time // non-zero while a person is being asked
	stopped  error     // why host_interrupt stopped the script
}

type sessionKey struct{}

func withSession(ctx context.Context, s *session) context.Context {
	return context.WithValue(ctx, sessionKey{}, s)
}

func sessionOf(ctx context.Context) *session {
	s, _ := ctx.Value(sessionKey{}).(*session)
	return s
}

// pause stops the deadline clock until the returned func is called: the
// time limit counts the script's own time, not a person's.
func (s *session) pause() func() {
	s.mu.Lock()
	s.paused = time.Now()
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		if !s.deadline.IsZero() {
			s.deadline = s.deadline.Add(time.Since(s.paused))
		}
		s.paused = time.Time{}
		s.mu.Unlock()
	}
}

// check reports why the script must stop, or nil.
func (s *session) check(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped != nil {
		return s.stopped
	}
	if err := ctx.Err(); err != nil {
		s.stopped = err
	} else if !s.deadline.IsZero() && s.paused.IsZero() && time.Now().After(s.deadline) {
		s.stopped = errDeadline
	}
	return s.stopped
}

// remaining is the time left before the deadline (a day when none).
func (s *session) remaining() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.deadline.IsZero() {
		return 24 * time.Hour
	}
	return time.Until(s.deadline)
}

func hostInterrupt(ctx context.Context, _ api.Module, stack []uint64) {
	stack[0] = 0
	if s := sessionOf(ctx); s != nil && s.check(ctx) != nil {
		stack[0] = 1
	}
}

func hostRejection(ctx context.Context, _ api.Module, stack []uint64) {
	// The prelude handles rejections itself; free what the engine handed
	// over.
	if s := sessionOf(ctx); s != nil {
		s.vm.call(ctx, "qjs_free_value", stack[0])
		s.vm.call(ctx, "qjs_free_value", stack[1])
	}
}

func hostNoModule(_ context.Context, _ api.Module, stack []uint64) { stack[0] = 0 }

func hostUTC(_ context.Context, _ api.Module, stack []uint64) { stack[0] = 0 }

// hostReply is what __host returns to the guest, as JSON.
type hostReply struct {
	Value any    `json:"value,omitempty"`
	Error string `json:"error,omitempty"`
}

// hostCall is __host(op, json): it answers with a hostReply string. The
// prelude turns {"error":…} into a thrown Error.
func hostCall(ctx context.Context, _ api.Module, stack []uint64) {
	s := sessionOf(ctx)
	if s == nil {
		stack[0] = 0
		return
	}
	v := s.vm
	argc, argv := uint32(stack[3]), uint32(stack[4])
	arg := func(i uint32) string {
		if i >= argc {
			return ""
		}
		p, _ := v.mem.ReadUint32Le(argv + 4*i)
		str, _ := v.str(ctx, p)
		return str
	}
	op, raw := arg(0), arg(1)
	var reply hostReply
	if s.handle == nil {
		reply.Error = "no host calls are available while a tool file loads; call them inside execute"
	} else if val, err := s.handle(ctx, op, json.RawMessage(raw)); err != nil {
		reply.Error = err.Error()
	} else {
		reply.Value = val
	}
	out, err := json.Marshal(reply)
	if err != nil {
		out, _ = json.Marshal(hostReply{Error: "host reply: " + err.Error()})
	}
	p, err := v.writeString(ctx, string(out))
	if err != nil {
		stack[0] = 0
		return
	}
	val, _ := v.call(ctx, "qjs_new_string", uint64(p), uint64(len(out)))
	v.call(ctx, "wasm_free", uint64(p))
	stack[0] = uint64(val)
}

// errDeadline is why host_interrupt stopped a script that ran past its
// time limit.
var errDeadline = errors.New("time limit reached")
