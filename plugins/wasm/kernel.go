package wasm

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"unsafe"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/toolhost/toolhost/hostfns"
)

// kernel is the Extism kernel of one instance, in Go: the memory blocks a
// guest and its host functions pass each other (alloc, free, length,
// load/store), the call's input, output and error, config and vars.
//
// Extism's SDK runs its kernel as a second wasm module per instance and
// reaches it through exported-function handles on every call — alloc,
// load, store, output_set each cost a handle, a 10 KB call stack and a
// cancellation watch. Here the same functions are plain Go over a byte
// slice: a guest never addresses kernel memory directly (only through
// these functions), so it need not be wasm memory. Offsets are what the
// guest sees; 0 is never a block.
//
// Memory is a bump region with a free list: freeing the last block lowers
// the top, so the usual alloc-then-free of a log line or a host reply
// reuses the same bytes. Every call starts from an empty region (reset),
// and bytes are zeroed as they are handed out, so nothing of an earlier
// call — of another session — can be read back. The region is capped at
// the tool's memory limit, as Extism's kernel memory is.
type kernel struct {
	mem    []byte               // len(mem) is the top: offsets in use are below it
	blocks map[uint64]blockSpan // live blocks by offset
	free   []freeSpan           // freed blocks below the top, for reuse
	max    uint64               // bytes the region may grow to

	input, inputLen   uint64
	output, outputLen uint64
	errOff            uint64

	config   map[string]string
	vars     map[string][]byte
	varBytes int
	maxVar   int
}

type blockSpan struct{ len, cap uint64 }

type freeSpan struct{ off, cap uint64 }

// maxFreeSpans bounds the free list; blocks freed beyond it are reclaimed
// by the next reset.
const maxFreeSpans = 64

// maxVarBytes bounds an instance's vars (var_set), as Extism's default.
const maxVarBytes = 1 << 20

func newKernel(maxBytes uint64, config map[string]string) *kernel {
	k := &kernel{blocks: map[uint64]blockSpan{}, max: maxBytes, config: config, vars: map[string][]byte{}, maxVar: maxVarBytes}
	k.reset()
	return k
}

// errKernelMemory is wrapped when a guest's kernel memory would exceed
// its memory limit; the message says "memory limit" so the call is
// reported as ErrMemoryLimit.
var errKernelMemory = errors.New("kernel memory limit reached")

// reset frees every block: the start of every call.
func (k *kernel) reset() {
	if k.mem == nil {
		k.mem = make([]byte, 1, 4096)
	}
	k.mem = k.mem[:1] // offset 0 is "none"
	clear(k.blocks)
	k.free = k.free[:0]
	k.input, k.inputLen, k.output, k.outputLen, k.errOff = 0, 0, 0, 0, 0
}

// alloc returns the offset of a new zeroed block of n bytes; 0 for n = 0.
func (k *kernel) alloc(n uint64) (uint64, error) {
	if n == 0 {
		return 0, nil
	}
	for i, f := range k.free {
		if f.cap >= n {
			k.free = append(k.free[:i], k.free[i+1:]...)
			clear(k.mem[f.off : f.off+n])
			k.blocks[f.off] = blockSpan{len: n, cap: f.cap}
			return f.off, nil
		}
	}
	off := uint64(len(k.mem))
	if n > k.max || off+n > k.max {
		return 0, fmt.Errorf("%w: %d bytes in use, %d more asked, %d allowed", errKernelMemory, off, n, k.max)
	}
	if top := off + n; top <= uint64(cap(k.mem)) {
		k.mem = k.mem[:top]
		clear(k.mem[off:])
	} else {
		k.mem = append(k.mem, make([]byte, n)...)
	}
	k.blocks[off] = blockSpan{len: n, cap: n}
	return off, nil
}

// release frees the block at off; unknown offsets are ignored, as
// Extism's kernel ignores them.
func (k *kernel) release(off uint64) {
	b, ok := k.blocks[off]
	if !ok {
		return
	}
	delete(k.blocks, off)
	if off+b.cap != uint64(len(k.mem)) {
		if len(k.free) < maxFreeSpans {
			k.free = append(k.free, freeSpan{off, b.cap})
		}
		return
	}
	k.mem = k.mem[:off]
	// Free blocks now at the top go too.
	for again := true; again; {
		again = false
		for i, f := range k.free {
			if f.off+f.cap == uint64(len(k.mem)) {
				k.mem = k.mem[:f.off]
				k.free = append(k.free[:i], k.free[i+1:]...)
				again = true
				break
			}
		}
	}
}

// length returns the length of the block at off, 0 when none starts there.
func (k *kernel) length(off uint64) uint64 { return k.blocks[off].len }

// bytes returns n bytes at off, nil when they are not all in use.
func (k *kernel) bytes(off, n uint64) []byte {
	if off > uint64(len(k.mem)) || n > uint64(len(k.mem))-off {
		return nil
	}
	return k.mem[off : off+n]
}

// Read implements hostfns.Memory.
func (k *kernel) Read(off uint64) ([]byte, error) {
	b, ok := k.blocks[off]
	if !ok {
		return nil, fmt.Errorf("no memory block at offset %d", off)
	}
	return append([]byte(nil), k.mem[off:off+b.len]...), nil
}

// Write implements hostfns.Memory.
func (k *kernel) Write(b []byte) (uint64, error) {
	off, err := k.alloc(uint64(len(b)))
	if err != nil {
		return 0, err
	}
	copy(k.mem[off:], b)
	return off, nil
}

// Free implements hostfns.Memory.
func (k *kernel) Free(off uint64) { k.release(off) }

// setInput starts a call: every block freed, input copied into a block.
func (k *kernel) setInput(input []byte) error {
	k.reset()
	off, err := k.Write(input)
	if err != nil {
		return err
	}
	k.input, k.inputLen = off, uint64(len(input))
	return nil
}

// outputBytes returns a copy of what the guest set with output_set.
func (k *kernel) outputBytes() ([]byte, error) {
	b := k.bytes(k.output, k.outputLen)
	if b == nil && k.outputLen > 0 {
		return nil, fmt.Errorf("output_set(%d, %d) names memory outside the kernel's %d bytes", k.output, k.outputLen, len(k.mem))
	}
	return append([]byte(nil), b...), nil
}

// errorMessage returns what the guest set with error_set, "" if nothing.
func (k *kernel) errorMessage() string {
	if k.errOff == 0 {
		return ""
	}
	b, ok := k.blocks[k.errOff]
	if !ok {
		return fmt.Sprintf("the tool reported an error at offset %d, which is no memory block", k.errOff)
	}
	return string(k.mem[k.errOff : k.errOff+b.len])
}

// varSize is what one var costs against maxVar, as Extism counts it.
func varSize(name string, value []byte) int {
	return int(unsafe.Sizeof([]byte{})+unsafe.Sizeof("")) + len(name) + len(value)
}

// kernelKey carries the instance's kernel in a call's context.
type kernelKey struct{}

// kernelOf returns the kernel of the instance a kernel function serves.
func kernelOf(ctx context.Context) *kernel {
	k, ok := ctx.Value(kernelKey{}).(*kernel)
	if !ok {
		panic(errors.New("extism kernel function called outside a toolhost call"))
	}
	return k
}

// trapf aborts the guest with a message naming the kernel function.
func trapf(fn, format string, args ...any) {
	panic(fmt.Errorf("extism:host/env %s: %s", fn, fmt.Sprintf(format, args...)))
}

// kernelFunction is one function of the Extism kernel namespace.
type kernelFunction struct {
	name            string
	params, results []api.ValueType
	fn              api.GoFunc
}

var (
	vI32 = api.ValueTypeI32
	vI64 = api.ValueTypeI64
)

func types(t ...api.ValueType) []api.ValueType { return t }

// kernelFunctions are the Extism kernel functions (extism:host/env) with
// the signatures every Extism PDK imports. The functions that reach the
// outside world — http_*, log_*, get_log_level — are hostfns'.
var kernelFunctions = []kernelFunction{
	{"alloc", types(vI64), types(vI64), func(ctx context.Context, s []uint64) {
		off, err := kernelOf(ctx).alloc(s[0])
		if err != nil {
			trapf("alloc", "%v", err)
		}
		s[0] = off
	}},
	{"free", types(vI64), nil, func(ctx context.Context, s []uint64) { kernelOf(ctx).release(s[0]) }},
	{"length", types(vI64), types(vI64), func(ctx context.Context, s []uint64) { s[0] = kernelOf(ctx).length(s[0]) }},
	{"length_unsafe", types(vI64), types(vI64), func(ctx context.Context, s []uint64) { s[0] = kernelOf(ctx).length(s[0]) }},
	{"load_u8", types(vI64), types(vI32), func(ctx context.Context, s []uint64) {
		b := kernelOf(ctx).bytes(s[0], 1)
		if b == nil {
			trapf("load_u8", "offset %d is outside kernel memory", s[0])
		}
		s[0] = uint64(b[0])
	}},
	{"load_u64", types(vI64), types(vI64), func(ctx context.Context, s []uint64) {
		b := kernelOf(ctx).bytes(s[0], 8)
		if b == nil {
			trapf("load_u64", "offset %d is outside kernel memory", s[0])
		}
		s[0] = binary.LittleEndian.Uint64(b)
	}},
	{"store_u8", types(vI64, vI32), nil, func(ctx context.Context, s []uint64) {
		b := kernelOf(ctx).bytes(s[0], 1)
		if b == nil {
			trapf("store_u8", "offset %d is outside kernel memory", s[0])
		}
		b[0] = byte(s[1])
	}},
	{"store_u64", types(vI64, vI64), nil, func(ctx context.Context, s []uint64) {
		b := kernelOf(ctx).bytes(s[0], 8)
		if b == nil {
			trapf("store_u64", "offset %d is outside kernel memory", s[0])
		}
		binary.LittleEndian.PutUint64(b, s[1])
	}},
	{"input_length", nil, types(vI64), func(ctx context.Context, s []uint64) { s[0] = kernelOf(ctx).inputLen }},
	{"input_offset", nil, types(vI64), func(ctx context.Context, s []uint64) { s[0] = kernelOf(ctx).input }},
	{"input_load_u8", types(vI64), types(vI32), func(ctx context.Context, s []uint64) {
		k := kernelOf(ctx)
		b := k.bytes(k.input+s[0], 1)
		if s[0] >= k.inputLen || b == nil {
			trapf("input_load_u8", "index %d is past the %d-byte input", s[0], k.inputLen)
		}
		s[0] = uint64(b[0])
	}},
	{"input_load_u64", types(vI64), types(vI64), func(ctx context.Context, s []uint64) {
		k := kernelOf(ctx)
		b := k.bytes(k.input+s[0], 8)
		if s[0] >= k.inputLen || b == nil {
			trapf("input_load_u64", "index %d is past the %d-byte input", s[0], k.inputLen)
		}
		s[0] = binary.LittleEndian.Uint64(b)
	}},
	{"input_set", types(vI64, vI64), nil, func(ctx context.Context, s []uint64) {
		k := kernelOf(ctx)
		if k.bytes(s[0], s[1]) == nil {
			trapf("input_set", "(%d, %d) is outside kernel memory", s[0], s[1])
		}
		k.input, k.inputLen = s[0], s[1]
	}},
	{"output_set", types(vI64, vI64), nil, func(ctx context.Context, s []uint64) {
		k := kernelOf(ctx)
		if k.bytes(s[0], s[1]) == nil {
			trapf("output_set", "(%d, %d) is outside kernel memory", s[0], s[1])
		}
		k.output, k.outputLen = s[0], s[1]
	}},
	{"output_length", nil, types(vI64), func(ctx context.Context, s []uint64) { s[0] = kernelOf(ctx).outputLen }},
	{"output_offset", nil, types(vI64), func(ctx context.Context, s []uint64) { s[0] = kernelOf(ctx).output }},
	{"error_set", types(vI64), nil, func(ctx context.Context, s []uint64) { kernelOf(ctx).errOff = s[0] }},
	{"error_get", nil, types(vI64), func(ctx context.Context, s []uint64) { s[0] = kernelOf(ctx).errOff }},
	{"reset", nil, nil, func(ctx context.Context, s []uint64) { kernelOf(ctx).reset() }},
	{"memory_bytes", nil, types(vI64), func(ctx context.Context, s []uint64) { s[0] = uint64(len(kernelOf(ctx).mem)) }},
	{"config_get", types(vI64), types(vI64), func(ctx context.Context, s []uint64) {
		k := kernelOf(ctx)
		name, err := k.Read(s[0])
		if err != nil {
			trapf("config_get", "read key: %v", err)
		}
		v, ok := k.config[string(name)]
		if !ok {
			s[0] = 0
			return
		}
		if s[0], err = k.Write([]byte(v)); err != nil {
			trapf("config_get", "%v", err)
		}
	}},
	{"var_get", types(vI64), types(vI64), func(ctx context.Context, s []uint64) {
		k := kernelOf(ctx)
		name, err := k.Read(s[0])
		if err != nil {
			trapf("var_get", "read name: %v", err)
		}
		k.release(s[0])
		v, ok := k.vars[string(name)]
		if !ok {
			s[0] = 0
			return
		}
		if s[0], err = k.Write(v); err != nil {
			trapf("var_get", "%v", err)
		}
	}},
	{"var_set", types(vI64, vI64), nil, func(ctx context.Context, s []uint64) {
		k := kernelOf(ctx)
		nb, err := k.Read(s[0])
		if err != nil {
			trapf("var_set", "read name: %v", err)
		}
		k.release(s[0])
		name := string(nb)
		if old, ok := k.vars[name]; ok {
			k.varBytes -= varSize(name, old)
			delete(k.vars, name)
		}
		if s[1] == 0 {
			return
		}
		v, err := k.Read(s[1])
		if err != nil {
			trapf("var_set", "read value: %v", err)
		}
		k.release(s[1])
		if k.varBytes+varSize(name, v) > k.maxVar {
			trapf("var_set", "vars are full: %d of %d bytes used", k.varBytes, k.maxVar)
		}
		k.vars[name] = v
		k.varBytes += varSize(name, v)
	}},
}

// instantiateHostModules adds the host modules every guest may import to
// rt: the Extism kernel and toolhost's functions (hostfns) in
// extism:host/env, toolhost's own in extism:host/user, and the guarded
// http_request again in toolhost:host/http.
func instantiateHostModules(ctx context.Context, rt wazero.Runtime) error {
	builders := map[string]wazero.HostModuleBuilder{}
	builder := func(ns string) wazero.HostModuleBuilder {
		b, ok := builders[ns]
		if !ok {
			b = rt.NewHostModuleBuilder(ns)
			builders[ns] = b
		}
		return b
	}
	env := builder(hostfns.EnvNamespace)
	for _, f := range kernelFunctions {
		env.NewFunctionBuilder().WithGoFunction(f.fn, f.params, f.results).Export(f.name)
	}
	for _, f := range hostfns.Functions() {
		builder(f.Namespace).NewFunctionBuilder().WithGoFunction(f.Fn, f.Params, f.Results).Export(f.Name)
	}
	for ns, b := range builders {
		if _, err := b.Instantiate(ctx); err != nil {
			return fmt.Errorf("host module %s: %w", ns, err)
		}
	}
	return nil
}
