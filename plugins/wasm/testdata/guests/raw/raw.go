//go:build wasip1

// Package raw gives hostile test guests direct access to the Extism kernel,
// to produce outputs the SDK would never produce.
package raw

//go:wasmimport extism:host/env alloc
func Alloc(n uint64) uint64

//go:wasmimport extism:host/env store_u8
func StoreU8(off uint64, v uint32)

//go:wasmimport extism:host/env output_set
func OutputSet(off, n uint64)

// Output sets the call's output to b.
func Output(b []byte) {
	off := Alloc(uint64(len(b)))
	for i, c := range b {
		StoreU8(off+uint64(i), uint32(c))
	}
	OutputSet(off, uint64(len(b)))
}
