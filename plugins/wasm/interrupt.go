package wasm

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
)

// Stopping a guest that never returns.
//
// wazero stops a running guest only when it was compiled with
// RuntimeConfig.WithCloseOnContextDone, which makes every loop iteration
// leave native code for Go to ask whether the module was closed (wazero
// issue #2466): a Go-built tool's call costs about 7× its work. Upstream
// fixes that test a flag inline; until one is released, toolhost adds
// its own checks to the module before compiling it (loopcheck.go):
//
//   - one exported mutable i32 global, stopGlobal, initially 0; one
//     private budget, initially yieldEvery; and one function, $flush(n);
//   - in every function that can run long — one with a loop that a
//     branch can repeat, or one that calls other functions or has much
//     code — a local counter, $c: each iteration of such a loop adds its
//     weight (1, and 1 more for every stepBytes of its body) in a register,
//     and every checkEvery iterations, before each call the function
//     makes and when it returns, the count goes to $flush;
//   - $flush traps when the flag is set, takes n from the budget, and
//     when the budget runs out resets it and leaves native code
//     (memory.grow 0).
//
// A loop iteration pays an add and a compare on a register; the memory
// operations and the test of the flag come once every checkEvery
// iterations and once per call of a function that counted. A loop that
// makes no call reaches $flush through a function that also passes the
// locals the loop sets back and forth (resumeFunc), so the rare call
// does not make wazero keep the loop's variables on the stack. The host
// stops a call by setting the flag to 1 (instance.interrupt, from the
// timer or the cancelled context); the guest traps at its next flush:
// within checkEvery iterations of the loop it is in, or when the function
// it is in calls or returns. A guest cannot clear the flag or reach the counters:
// instrumentation adds no global.set of the flag, $flush ignores a count
// that is not positive, and a module whose code names a local, global,
// function or type index it does not have — one the instrumentation
// would give it — is refused (it was invalid anyway).
//
// A bulk operation (memory.fill, memory.copy, table.fill, …) runs as
// long as its size says: it calls $bulk first, which looks at the flag
// and takes its size from the budget (bulkFunc).
//
// A function that calls another counts its own entry, so work that has
// no loop but many calls — a naive recursive Fibonacci, a tree of calls
// — is counted too: the calls of any unbounded run go through a
// function that counted. Loops no branch targets run once and are left
// alone.
//
// The budget is there because native code cannot be preempted by Go's
// scheduler: a guest spinning on a P keeps that P's timers — the very
// timer that would stop it — from running, and with every P spinning
// nothing runs at all (nor can the garbage collector stop the world).
// memory.grow 0 changes nothing but leaves native code for a Go
// function, where the scheduler can preempt the goroutine that sysmon
// marked and run the timers; every yieldEvery counted iterations that
// costs a fraction of a percent. A module without a memory (nothing to
// grow) is left to wazero's checks.
//
// A host function that blocks (ask, http_request) watches the call's
// context itself.
//
// A module the instrumenter cannot read — an opcode it does not know, a
// section it cannot parse, exception handling — is compiled with
// WithCloseOnContextDone instead: slower, never unstoppable. So is a
// module with a start function, which runs while the module is
// instantiated, before its flag exists; instantiation runs under the
// time limit (compiled.get), so wazero's checks stop that function.

// stopGlobal is the export name of the flag instrumentLoops adds.
const stopGlobal = "toolhost:stop"

// yieldEvery is how many counted iterations a guest runs between two
// visits to Go (about 0.1 ms of a tight loop).
const yieldEvery = 1 << 16

// checkEvery is how many iterations a function's loops run between two
// flushes of its counter: the most a loop runs after the flag is set.
const checkEvery = 1 << 10

// Section ids (WebAssembly core spec 5.5.2) and the opcodes the
// instrumentation writes or watches.
const (
	secCustom   = 0
	secType     = 1
	secImport   = 2
	secFunction = 3
	secGlobal   = 6
	secExport   = 7
	secStart    = 8
	secElem     = 9
	secCode     = 10
	secDataCnt  = 12
	secTag      = 13
	kindFunc    = 0
	kindGlobal  = 3
	kindMemory  = 2
	blockEmpty  = 0x40
)

// sectionRank orders the known non-custom sections as a module must.
var sectionRank = map[byte]int{1: 1, 2: 2, 3: 3, 4: 4, 5: 5, secTag: 6, secGlobal: 7, secExport: 8, 8: 9, 9: 10, secDataCnt: 11, secCode: 12, 11: 13}

type section struct {
	id   byte
	body []byte
}

// instrumentLoops returns wasm with the stop flag and its checks added,
// and how many loops it instrumented. DWARF custom sections (.debug_*)
// are dropped: their code offsets no longer match.
func instrumentLoops(wasm []byte) ([]byte, int, error) {
	return instrumentWith(wasm, loopPlan{every: checkEvery, countCalls: true})
}

// instrumentWith is instrumentLoops with the checks of p (every and
// countCalls; the indices are filled in here).
func instrumentWith(wasm []byte, p loopPlan) ([]byte, int, error) {
	if len(wasm) < 8 || !bytes.Equal(wasm[:4], wasmMagic) {
		return nil, 0, errors.New("not a wasm module")
	}
	if !bytes.Equal(wasm[4:8], []byte{1, 0, 0, 0}) {
		return nil, 0, fmt.Errorf("wasm version %x is not 1", wasm[4:8])
	}
	var secs []section
	r := &reader{b: wasm, pos: 8}
	for r.pos < len(r.b) {
		id, err := r.byte()
		if err != nil {
			return nil, 0, err
		}
		size, err := r.u32()
		if err != nil {
			return nil, 0, err
		}
		if uint64(r.pos)+uint64(size) > uint64(len(r.b)) {
			return nil, 0, errors.New("section overruns the module")
		}
		body := r.b[r.pos : r.pos+int(size)]
		r.pos += int(size)
		if id == secCustom {
			nr := &reader{b: body}
			if name, err := nr.name(); err == nil && strings.HasPrefix(name, ".debug_") {
				continue
			}
		} else if _, ok := sectionRank[id]; !ok {
			return nil, 0, fmt.Errorf("unknown section id %d", id)
		} else if id == secStart {
			// It runs while the module is instantiated, before the
			// instance — and so its flag — exists.
			return nil, 0, errors.New("a start function runs before the stop flag can be set")
		}
		secs = append(secs, section{id, body})
	}

	// What the module has: the added globals and function come after it.
	var m moduleShape
	if err := m.read(secs); err != nil {
		return nil, 0, err
	}
	if m.memories == 0 {
		return nil, 0, errors.New("the module has no memory for the yield (memory.grow)")
	}
	p.globals, p.funcs = m.globals, m.importedFuncs+uint64(len(m.funcTypes))
	p.flush = p.funcs
	addFlush := m.hasCode

	newGlobal := []byte{0x7f, 0x01, opI32Const, 0x00, opEnd} // the flag: mut i32 = 0
	newGlobal = append(newGlobal, 0x7f, 0x01, opI32Const)    // the budget: mut i32 = yieldEvery
	newGlobal = append(append(newGlobal, sleb32(yieldEvery)...), opEnd)
	newExport := append(append(leb(uint64(len(stopGlobal))), stopGlobal...), kindGlobal)
	newExport = append(newExport, leb(p.globals)...)

	// The code first: it says which functions the instrumentation adds.
	var code []byte
	var added instrumented
	for _, s := range secs {
		if s.id == secCode {
			var err error
			if code, added, err = p.instrumentCode(s.body, &m); err != nil {
				return nil, 0, fmt.Errorf("code section: %w", err)
			}
		}
	}

	var out bytes.Buffer
	out.Grow(len(wasm) + len(wasm)/8)
	out.Write(wasm[:8])
	write := func(id byte, body []byte) {
		out.WriteByte(id)
		out.Write(leb(uint64(len(body))))
		out.Write(body)
	}
	loops := 0
	haveGlobal, haveExport := false, false
	for _, s := range secs {
		if s.id != secCustom {
			rank := sectionRank[s.id]
			if !haveGlobal && rank > sectionRank[secGlobal] {
				write(secGlobal, appendToVec(nil, 0, 2, newGlobal))
				haveGlobal = true
			}
			if !haveExport && rank > sectionRank[secExport] {
				write(secExport, appendToVec(nil, 0, 1, newExport))
				haveExport = true
			}
		}
		switch {
		case s.id == secType && addFlush:
			write(secType, appendToVec(s.body, len(m.typeParams), len(added.types), bytes.Join(added.types, nil)))
		case s.id == secFunction && addFlush:
			var funcs []byte
			for _, t := range added.funcTypes {
				funcs = append(funcs, leb(uint64(len(m.typeParams)+t))...)
			}
			write(secFunction, appendToVec(s.body, len(m.funcTypes), len(added.funcTypes), funcs))
		case s.id == secGlobal:
			write(secGlobal, appendToVec(s.body, int(m.globals-m.importedGlobals), 2, newGlobal))
			haveGlobal = true
		case s.id == secExport:
			n, _ := (&reader{b: s.body}).u32()
			write(secExport, appendToVec(s.body, int(n), 1, newExport))
			haveExport = true
		case s.id == secCode:
			loops = added.loops
			write(secCode, code)
		default:
			write(s.id, s.body)
		}
	}
	if !haveGlobal {
		write(secGlobal, appendToVec(nil, 0, 2, newGlobal))
	}
	if !haveExport {
		write(secExport, appendToVec(nil, 0, 1, newExport))
	}
	return out.Bytes(), loops, nil
}

// moduleShape is what the instrumentation needs to know of a module
// before it adds to it.
type moduleShape struct {
	importedFuncs, importedGlobals uint64
	globals                        uint64   // imported and defined
	memories                       int      // imported and defined
	typeParams                     [][]byte // the parameter types of each type, encoded
	funcTypes                      []uint32 // type index of each defined function
	hasCode                        bool     // function and code sections, both present
	hasTypes                       bool
}

func (m *moduleShape) read(secs []section) error {
	hasFuncs := false
	for _, s := range secs {
		switch s.id {
		case secType:
			params, err := typeParams(s.body)
			if err != nil {
				return fmt.Errorf("type section: %w", err)
			}
			m.typeParams, m.hasTypes = params, true
		case secImport:
			f, g, mem, err := countImports(s.body)
			if err != nil {
				return fmt.Errorf("import section: %w", err)
			}
			m.importedFuncs, m.importedGlobals, m.memories = f, g, m.memories+mem
			m.globals += g
		case secFunction:
			types, err := funcTypes(s.body, len(m.typeParams))
			if err != nil {
				return fmt.Errorf("function section: %w", err)
			}
			m.funcTypes, hasFuncs = types, true
		case 5: // memory
			n, err := firstMemory(s.body)
			if err != nil {
				return fmt.Errorf("memory section: %w", err)
			}
			m.memories += n
		case secGlobal:
			n, err := (&reader{b: s.body}).u32()
			if err != nil {
				return fmt.Errorf("global section: %w", err)
			}
			m.globals += uint64(n)
			if err := m.globalInits(s.body); err != nil {
				return fmt.Errorf("global section: %w", err)
			}
		case secElem:
			if err := m.elements(s.body); err != nil {
				return fmt.Errorf("element section: %w", err)
			}
		case secExport:
			if has, err := exportsName(s.body, stopGlobal); err != nil || has {
				if err == nil {
					err = fmt.Errorf("the module already exports %q", stopGlobal)
				}
				return fmt.Errorf("export section: %w", err)
			}
		case secCode:
			m.hasCode = true
		}
	}
	if hasFuncs != m.hasCode {
		return errors.New("a function section without a code section, or the reverse")
	}
	if m.hasCode && !m.hasTypes {
		return errors.New("functions without a type section")
	}
	return nil
}

// appendToVec returns a vector section body of n entries (body, whose
// count prefix is re-encoded) with k more entries, encoded in entries.
func appendToVec(body []byte, n, k int, entries []byte) []byte {
	rest := body
	if body != nil {
		r := &reader{b: body}
		r.u32()
		rest = body[r.pos:]
	}
	out := leb(uint64(n + k))
	out = append(out, rest...)
	return append(out, entries...)
}

// sleb32 encodes a non-negative i32 constant.
func sleb32(v int32) []byte {
	var out []byte
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v == 0 && c&0x40 == 0 {
			return append(out, c)
		}
		out = append(out, c|0x80)
	}
}

// countImports returns how many functions, globals and memories a module
// imports; a 64-bit memory is refused (memory.grow 0 would need an i64).
func countImports(sec []byte) (funcs, globals uint64, memories int, err error) {
	r := &reader{b: sec}
	n, err := r.u32()
	if err != nil {
		return 0, 0, 0, err
	}
	for range n {
		if _, err := r.name(); err != nil {
			return 0, 0, 0, err
		}
		if _, err := r.name(); err != nil {
			return 0, 0, 0, err
		}
		if r.pos < len(r.b) {
			switch r.b[r.pos] {
			case kindFunc:
				funcs++
			case kindGlobal:
				globals++
			case kindMemory:
				if memories == 0 && r.pos+1 < len(r.b) && r.b[r.pos+1]&0x04 != 0 {
					return 0, 0, 0, errors.New("64-bit memories are not supported")
				}
				memories++
			}
		}
		if err := r.skipImportDesc(); err != nil {
			return 0, 0, 0, err
		}
	}
	return funcs, globals, memories, nil
}

// typeParams returns the parameters of each function type of a type
// section, as their value types' encodings; a type of the GC proposal (a
// recursive group, a subtype, a struct or array) is refused.
func typeParams(sec []byte) ([][]byte, error) {
	r := &reader{b: sec}
	n, err := r.u32()
	if err != nil {
		return nil, err
	}
	out := make([][]byte, 0, min(n, 1<<16))
	for range n {
		form, err := r.byte()
		if err != nil {
			return nil, err
		}
		if form != 0x60 {
			return nil, fmt.Errorf("type form 0x%02x is not a function type", form)
		}
		var params []byte
		for i := range 2 {
			k, err := r.u32()
			if err != nil {
				return nil, err
			}
			start := r.pos
			for range k {
				if err := r.skipValType(); err != nil {
					return nil, err
				}
			}
			if i == 0 {
				params = r.b[start:r.pos]
			}
		}
		out = append(out, params)
	}
	if r.pos != len(r.b) {
		return nil, errors.New("trailing bytes")
	}
	return out, nil
}

// funcTypes returns the type index of each function of a function
// section, each checked against the types' count.
func funcTypes(sec []byte, types int) ([]uint32, error) {
	r := &reader{b: sec}
	n, err := r.u32()
	if err != nil {
		return nil, err
	}
	out := make([]uint32, 0, min(n, 1<<16))
	for range n {
		t, err := r.u32()
		if err != nil {
			return nil, err
		}
		if int(t) >= types {
			return nil, fmt.Errorf("type index %d out of range", t)
		}
		out = append(out, t)
	}
	return out, nil
}

// firstMemory returns how many memories a memory section defines,
// refusing a 64-bit one.
func firstMemory(sec []byte) (int, error) {
	r := &reader{b: sec}
	n, err := r.u32()
	if err != nil {
		return 0, err
	}
	if n > 0 && r.pos < len(r.b) && r.b[r.pos]&0x04 != 0 {
		return 0, errors.New("64-bit memories are not supported")
	}
	return int(n), nil
}

func exportsName(sec []byte, want string) (bool, error) {
	r := &reader{b: sec}
	n, err := r.u32()
	if err != nil {
		return false, err
	}
	for range n {
		name, err := r.name()
		if err != nil {
			return false, err
		}
		if name == want {
			return true, nil
		}
		if _, err := r.byte(); err != nil {
			return false, err
		}
		if _, err := r.u32(); err != nil {
			return false, err
		}
	}
	return false, nil
}
