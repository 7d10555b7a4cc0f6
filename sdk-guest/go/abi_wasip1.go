//go:build wasip1

package tool

import (
	"encoding/binary"
)

// The raw Extism ABI (module extism:host/env) and toolhost's host functions
// (module extism:host/user). docs/abi.md in the toolhost repository is the
// contract; every offset below is an Extism memory offset, not a pointer
// into this module's own linear memory, so bytes move through
// load/store calls.

//go:wasmimport extism:host/env input_length
func extismInputLength() uint64

//go:wasmimport extism:host/env input_load_u8
func extismInputLoadU8(offset uint64) uint32

//go:wasmimport extism:host/env input_load_u64
func extismInputLoadU64(offset uint64) uint64

//go:wasmimport extism:host/env length
func extismLength(offset uint64) uint64

//go:wasmimport extism:host/env alloc
func extismAlloc(length uint64) uint64

//go:wasmimport extism:host/env free
func extismFree(offset uint64)

//go:wasmimport extism:host/env output_set
func extismOutputSet(offset, length uint64)

//go:wasmimport extism:host/env error_set
func extismErrorSet(offset uint64)

//go:wasmimport extism:host/env config_get
func extismConfigGet(offset uint64) uint64

//go:wasmimport extism:host/env load_u8
func extismLoadU8(offset uint64) uint32

//go:wasmimport extism:host/env load_u64
func extismLoadU64(offset uint64) uint64

//go:wasmimport extism:host/env store_u8
func extismStoreU8(offset uint64, v uint32)

//go:wasmimport extism:host/env store_u64
func extismStoreU64(offset uint64, v uint64)

//go:wasmimport extism:host/user ask
func hostAsk(offset uint64) uint64

//go:wasmimport extism:host/user metadata
func hostMetadata(offset uint64) uint64

//go:wasmimport extism:host/user log
func hostLog(offset uint64) uint64

//go:wasmimport extism:host/user state_get
func hostStateGet(offset uint64) uint64

//go:wasmimport extism:host/user state_set
func hostStateSet(offset uint64) uint64

//go:wasmimport extism:host/user sample
func hostSample(offset uint64) uint64

//go:wasmimport extism:host/user elicit
func hostElicit(offset uint64) uint64

//go:wasmimport extism:host/user call
func hostCallFn(offset uint64) uint64

func readInput() []byte {
	n := extismInputLength()
	buf := make([]byte, n)
	var i uint64
	for ; i+8 <= n; i += 8 {
		binary.LittleEndian.PutUint64(buf[i:], extismInputLoadU64(i))
	}
	for ; i < n; i++ {
		buf[i] = byte(extismInputLoadU8(i))
	}
	return buf
}

// store copies b into a fresh Extism memory block and returns its offset.
func store(b []byte) uint64 {
	n := uint64(len(b))
	off := extismAlloc(n)
	var i uint64
	for ; i+8 <= n; i += 8 {
		extismStoreU64(off+i, binary.LittleEndian.Uint64(b[i:]))
	}
	for ; i < n; i++ {
		extismStoreU8(off+i, uint32(b[i]))
	}
	return off
}

// load copies the Extism memory block at off into Go memory.
func load(off uint64) []byte {
	n := extismLength(off)
	buf := make([]byte, n)
	var i uint64
	for ; i+8 <= n; i += 8 {
		binary.LittleEndian.PutUint64(buf[i:], extismLoadU64(off+i))
	}
	for ; i < n; i++ {
		buf[i] = byte(extismLoadU8(off + i))
	}
	return buf
}

func setOutput(b []byte) {
	extismOutputSet(store(b), uint64(len(b)))
}

func setError(msg string) {
	extismErrorSet(store([]byte(msg)))
}

func configGet(key string) (string, bool) {
	k := store([]byte(key))
	v := extismConfigGet(k)
	extismFree(k)
	if v == 0 {
		return "", false
	}
	b := load(v)
	extismFree(v)
	return string(b), true
}

// callHost sends payload to one of toolhost's host functions and returns
// its response, or nil when the function returned 0 (no response).
func callHost(fn func(uint64) uint64, payload []byte) []byte {
	in := store(payload)
	out := fn(in)
	extismFree(in)
	if out == 0 {
		return nil
	}
	b := load(out)
	extismFree(out)
	return b
}

var (
	fnAsk      = hostAsk
	fnMetadata = hostMetadata
	fnLog      = hostLog
	fnStateGet = hostStateGet
	fnStateSet = hostStateSet
	fnSample   = hostSample
	fnElicit   = hostElicit
	fnCall     = hostCallFn
)

//go:wasmimport extism:host/env http_request
func extismHTTPRequest(req, body uint64) uint64

//go:wasmimport extism:host/env http_status_code
func extismHTTPStatusCode() int32

func httpRequest(req, body []byte) (int, []byte) {
	r := store(req)
	var b uint64
	if body != nil {
		b = store(body)
	}
	out := extismHTTPRequest(r, b)
	status := int(extismHTTPStatusCode())
	if out == 0 {
		return status, nil
	}
	resp := load(out)
	extismFree(out)
	return status, resp
}
