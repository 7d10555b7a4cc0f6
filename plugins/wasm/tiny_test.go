package wasm

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The tiny guests: modules assembled here, byte by byte, with no language
// runtime at all — what a C tool without libc compiles to. They measure
// the host's own cost per call (BenchmarkCall/tiny) and test the kernel
// and the stop flag without a Go runtime in the way.

// wasmModule assembles a module from section bodies, in order.
func wasmModule(sections ...[]byte) []byte {
	out := []byte{0, 'a', 's', 'm', 1, 0, 0, 0}
	for _, s := range sections {
		out = append(out, s...)
	}
	return out
}

func wasmSection(id byte, body ...[]byte) []byte {
	var b []byte
	for _, p := range body {
		b = append(b, p...)
	}
	return append(append([]byte{id}, leb(uint64(len(b)))...), b...)
}

func wasmVec(items ...[]byte) []byte {
	out := leb(uint64(len(items)))
	for _, it := range items {
		out = append(out, it...)
	}
	return out
}

func wasmName(s string) []byte { return append(leb(uint64(len(s))), s...) }

func cat(parts ...[]byte) []byte {
	var out []byte
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// wasmFunc is a function body: local groups and code (without the final
// end, which is added).
func wasmFunc(locals []byte, code ...[]byte) []byte {
	body := cat(locals, cat(code...), []byte{0x0b})
	return append(leb(uint64(len(body))), body...)
}

const (
	tI32 = 0x7f
	tI64 = 0x7e
)

func funcType(params, results []byte) []byte {
	return cat([]byte{0x60}, wasmVec(splitBytes(params)...), wasmVec(splitBytes(results)...))
}

func splitBytes(b []byte) [][]byte {
	out := make([][]byte, len(b))
	for i := range b {
		out[i] = b[i : i+1]
	}
	return out
}

func i32Const(v int) []byte { return cat([]byte{0x41}, sleb(int64(v))) }

func sleb(v int64) []byte {
	var out []byte
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0) {
			return append(out, c)
		}
		out = append(out, c|0x80)
	}
}

// tiny says what a tiny guest does.
type tiny struct {
	output string // what execute returns
	spin   bool   // execute loops forever instead
	// logs: execute logs "tiny debug" with log_debug and "tiny warn" with
	// log_warn, and returns get_log_level's answer as a digit.
	logs bool
	// clash: the module already exports a global named stopGlobal, which
	// instrumentLoops refuses.
	clash bool
	// recurse: execute computes a naive recursive Fibonacci of recurse,
	// which has no loop: of 90, it runs for ages (2^62 calls). Its
	// output is fib(recurse), four bytes little-endian.
	recurse int
}

// tinyGuest returns a tool module with description, schema and execute
// that each return a constant string, copied byte by byte from the
// guest's memory into a kernel block (a loop of store_u8), as the
// smallest C guest does.
func tinyGuest(o tiny) []byte {
	desc, schema := "A tiny tool.", `{"type":"object","properties":{}}`
	dbg, warn := "tiny debug", "tiny warn"
	data := desc + schema + o.output + dbg + warn + "0"
	at := func(s string) int { return strings.Index(data, s) }
	types := wasmSection(1, wasmVec(
		funcType(nil, []byte{tI32}),                // 0: exports
		funcType([]byte{tI64}, []byte{tI64}),       // 1: alloc
		funcType([]byte{tI64, tI32}, nil),          // 2: store_u8
		funcType([]byte{tI64, tI64}, nil),          // 3: output_set
		funcType([]byte{tI32, tI32}, []byte{tI64}), // 4: block helper
		funcType([]byte{tI64}, nil),                // 5: log_*
		funcType([]byte{tI32}, []byte{tI32}),       // 6: fib
	))
	env := func(name string, typ byte) []byte {
		return cat(wasmName("extism:host/env"), wasmName(name), []byte{0, typ})
	}
	imports := wasmSection(2, wasmVec(
		env("alloc", 1), env("store_u8", 2), env("output_set", 3), // 0, 1, 2
		env("log_debug", 5), env("log_warn", 5), env("get_log_level", 0), // 3, 4, 5
	))
	const fDesc, fSchema, fExec, fBlock, fFib = 6, 7, 8, 9, 10
	funcs := wasmSection(3, wasmVec([]byte{0}, []byte{0}, []byte{0}, []byte{4}, []byte{6}))
	memory := wasmSection(5, wasmVec([]byte{0, 1}))
	var globals []byte
	exportList := [][]byte{
		cat(wasmName("description"), []byte{0, fDesc}),
		cat(wasmName("schema"), []byte{0, fSchema}),
		cat(wasmName("execute"), []byte{0, fExec}),
		cat(wasmName("memory"), []byte{2, 0}),
	}
	if o.clash {
		globals = wasmSection(6, wasmVec([]byte{tI32, 1, 0x41, 0, 0x0b}))
		exportList = append(exportList, cat(wasmName(stopGlobal), []byte{3, 0}))
	}
	exports := wasmSection(7, wasmVec(exportList...))
	block := func(off, n int) []byte { return cat(i32Const(off), i32Const(n), []byte{0x10, fBlock}) }
	ret := func(off, n int) []byte {
		return wasmFunc([]byte{0}, block(off, n), i32Const(n), []byte{0xad, 0x10, 2}, i32Const(0))
	}
	exec := ret(at(o.output), len(o.output))
	switch {
	case o.spin:
		// loop (block (loop br 0)) — nested, so both loops are checked.
		exec = wasmFunc([]byte{0}, []byte{0x03, 0x40, 0x02, 0x40, 0x03, 0x40, 0x0c, 0x00, 0x0b, 0x0b, 0x0c, 0x00, 0x0b}, i32Const(0))
	case o.recurse > 0:
		// mem[1024:1028] = fib(recurse); output those four bytes
		exec = wasmFunc([]byte{0}, i32Const(1024), i32Const(o.recurse), []byte{0x10, fFib, 0x36, 2, 0},
			block(1024, 4), i32Const(4), []byte{0xad, 0x10, 2}, i32Const(0))
	case o.logs:
		digit := len(data) - 1 // the trailing "0"
		exec = wasmFunc([]byte{0},
			block(at(dbg), len(dbg)), []byte{0x10, 3},
			block(at(warn), len(warn)), []byte{0x10, 4},
			// mem[digit] = '0' + get_log_level()
			i32Const(digit), i32Const('0'), []byte{0x10, 5, 0x6a, 0x3a, 0, 0},
			block(digit, 1), i32Const(1), []byte{0xad, 0x10, 2},
			i32Const(0))
	}
	// block(ptr, len) copies guest memory into a new kernel block.
	blockFn := wasmFunc(wasmVec(cat([]byte{1, tI64}), cat([]byte{1, tI32})),
		[]byte{0x20, 1, 0xad, 0x10, 0, 0x21, 2}, // off = alloc(len)
		i32Const(0), []byte{0x21, 3},            // i = 0
		[]byte{0x02, 0x40, 0x03, 0x40},                      // block loop
		[]byte{0x20, 3, 0x20, 1, 0x4f, 0x0d, 1},             // br_if i >= len
		[]byte{0x20, 2, 0x20, 3, 0xad, 0x7c},                // off + i
		[]byte{0x20, 0, 0x20, 3, 0x6a, 0x2d, 0, 0},          // mem[ptr+i]
		[]byte{0x10, 1},                                     // store_u8
		[]byte{0x20, 3}, i32Const(1), []byte{0x6a, 0x21, 3}, // i++
		[]byte{0x0c, 0, 0x0b, 0x0b}, // br 0; end; end
		[]byte{0x20, 2},             // return off
	)
	// fib(n) = n < 2 ? n : fib(n-1) + fib(n-2), with no loop.
	fib := wasmFunc([]byte{0},
		[]byte{0x20, 0}, i32Const(2), []byte{0x48, 0x04, tI32}, // if n < 2 (result i32)
		[]byte{0x20, 0, 0x05},                                  // n, else
		[]byte{0x20, 0}, i32Const(1), []byte{0x6b, 0x10, fFib}, // fib(n-1)
		[]byte{0x20, 0}, i32Const(2), []byte{0x6b, 0x10, fFib}, // fib(n-2)
		[]byte{0x6a, 0x0b}, // add, end
	)
	code := wasmSection(10, wasmVec(ret(0, len(desc)), ret(len(desc), len(schema)), exec, blockFn, fib))
	dataSec := wasmSection(11, wasmVec(cat([]byte{0}, i32Const(0), []byte{0x0b}, wasmName(data))))
	return wasmModule(types, imports, funcs, memory, globals, exports, code, dataSec)
}

// writeTiny writes a tiny guest to a temporary file.
func writeTiny(t testing.TB, name string, o tiny) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name+".wasm")
	if err := os.WriteFile(path, tinyGuest(o), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
