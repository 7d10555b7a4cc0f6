//go:build wasip1

package raw

//go:wasmimport extism:host/env input_length
func inputLength() uint64

//go:wasmimport extism:host/env input_load_u8
func inputLoadU8(off uint64) uint32

//go:wasmimport extism:host/env error_set
func errorSet(off uint64)

//go:wasmimport extism:host/user log
func hostLog(off uint64) uint64

// Input returns the call's input.
func Input() []byte {
	n := inputLength()
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(inputLoadU8(uint64(i)))
	}
	return b
}

func store(b []byte) uint64 {
	off := Alloc(uint64(len(b)))
	for i, c := range b {
		StoreU8(off+uint64(i), uint32(c))
	}
	return off
}

// Fail sets the call's error message; the export then returns non-zero.
func Fail(msg string) int32 {
	errorSet(store([]byte(msg)))
	return 1
}

// Log sends a plain-text line to toolhost's log host function.
func Log(msg string) { hostLog(store([]byte(msg))) }
