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
// fixes that test a flag inline; until one is released, toolhost adds the
// same inline test to the module itself before compiling it:
//
//   - one exported mutable i32 global, stopGlobal, initially 0, and one
//     private counter, $budget;
//   - at the top of every loop body:
//     global.get $stop; if; unreachable; end
//     $budget -= 1; if $budget == 0 { $budget = yieldEvery; memory.grow 0; drop }
//
// A loop iteration pays two loads, a store and two branches that are
// almost never taken. To stop a call, the host sets the flag to 1
// (instance.interrupt, from the timer or the cancelled context); the
// guest traps at its next loop iteration, and the instance is discarded.
// A guest cannot clear the flag: instrumentation adds no global.set of
// it, and its own code cannot name an index it was not compiled with.
//
// The counter is there because native code cannot be preempted by Go's
// scheduler: a guest spinning on a P keeps that P's timers — the very
// timer that would stop it — from running, and with every P spinning
// nothing runs at all. memory.grow 0 changes nothing but leaves native
// code for a Go function, where the scheduler can preempt the goroutine
// that sysmon marked and run the timers; every yieldEvery iterations
// that costs a fraction of a percent. A module without a memory (nothing
// to grow) is left to wazero's checks.
//
// Calls and returns are not instrumented: without a loop, code runs out
// of stack before it runs out of time. A host function that blocks (ask,
// http_request) watches the call's context itself.
//
// A module the instrumenter cannot read — an opcode it does not know, a
// section it cannot parse — is compiled with WithCloseOnContextDone
// instead: slower, never unstoppable.

// stopGlobal is the export name of the flag instrumentLoops adds.
const stopGlobal = "toolhost:stop"

// yieldEvery is how many loop iterations a guest runs between two visits
// to Go (about 0.1 ms of a tight loop).
const yieldEvery = 1 << 16

// Section ids (WebAssembly core spec 5.5.2).
const (
	secCustom   = 0
	secImport   = 2
	secGlobal   = 6
	secExport   = 7
	secCode     = 10
	secDataCnt  = 12
	secTag      = 13
	kindGlobal  = 3
	opUnreach   = 0x00
	opLoop      = 0x03
	opIf        = 0x04
	opEnd       = 0x0b
	opGlobalGet = 0x23
	opGlobalSet = 0x24
	opI32Const  = 0x41
	opI32Sub    = 0x6b
	opI32Eqz    = 0x45
	opMemGrow   = 0x40
	opDrop      = 0x1a
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
		}
		secs = append(secs, section{id, body})
	}

	// The flag's index: after every imported and defined global.
	importedGlobals, definedGlobals := 0, 0
	memories := 0
	for _, s := range secs {
		switch s.id {
		case secImport:
			g, m, err := countImports(s.body)
			if err != nil {
				return nil, 0, fmt.Errorf("import section: %w", err)
			}
			importedGlobals, memories = g, memories+m
		case 5: // memory
			n, err := firstMemory(s.body)
			if err != nil {
				return nil, 0, fmt.Errorf("memory section: %w", err)
			}
			memories += n
		case secGlobal:
			n, err := (&reader{b: s.body}).u32()
			if err != nil {
				return nil, 0, fmt.Errorf("global section: %w", err)
			}
			definedGlobals = int(n)
		case secExport:
			if has, err := exportsName(s.body, stopGlobal); err != nil || has {
				if err == nil {
					err = fmt.Errorf("the module already exports %q", stopGlobal)
				}
				return nil, 0, fmt.Errorf("export section: %w", err)
			}
		}
	}
	if memories == 0 {
		return nil, 0, errors.New("the module has no memory for the yield (memory.grow)")
	}
	flag := uint64(importedGlobals + definedGlobals)
	budget := leb(flag + 1)
	check := append(append([]byte{opGlobalGet}, leb(flag)...), opIf, blockEmpty, opUnreach, opEnd)
	check = append(append(check, opGlobalGet), budget...)
	check = append(append(check, opI32Const, 1, opI32Sub, opGlobalSet), budget...)
	check = append(append(check, opGlobalGet), budget...)
	check = append(check, opI32Eqz, opIf, blockEmpty, opI32Const)
	check = append(append(check, sleb32(yieldEvery)...), opGlobalSet)
	check = append(append(check, budget...), opI32Const, 0, opMemGrow, 0, opDrop, opEnd)

	newGlobal := []byte{0x7f, 0x01, 0x41, 0x00, opEnd} // mut i32 = i32.const 0
	newGlobal = append(newGlobal, 0x7f, 0x01, opI32Const)
	newGlobal = append(append(newGlobal, sleb32(yieldEvery)...), opEnd)
	newExport := append(append(leb(uint64(len(stopGlobal))), stopGlobal...), kindGlobal)
	newExport = append(newExport, leb(flag)...)

	var out bytes.Buffer
	out.Grow(len(wasm) + len(wasm)/16)
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
		switch s.id {
		case secGlobal:
			write(secGlobal, appendToVec(s.body, definedGlobals, 2, newGlobal))
			haveGlobal = true
		case secExport:
			n, _ := (&reader{b: s.body}).u32()
			write(secExport, appendToVec(s.body, int(n), 1, newExport))
			haveExport = true
		case secCode:
			body, n, err := instrumentCode(s.body, check)
			if err != nil {
				return nil, 0, fmt.Errorf("code section: %w", err)
			}
			loops += n
			write(secCode, body)
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

// countImports returns how many globals and memories a module imports; a
// 64-bit memory is refused (memory.grow 0 would need an i64).
func countImports(sec []byte) (globals, memories int, err error) {
	r := &reader{b: sec}
	n, err := r.u32()
	if err != nil {
		return 0, 0, err
	}
	for range n {
		if _, err := r.name(); err != nil {
			return 0, 0, err
		}
		if _, err := r.name(); err != nil {
			return 0, 0, err
		}
		if r.pos < len(r.b) {
			switch r.b[r.pos] {
			case kindGlobal:
				globals++
			case kindMemory:
				if memories == 0 && r.pos+1 < len(r.b) && r.b[r.pos+1]&0x04 != 0 {
					return 0, 0, errors.New("64-bit memories are not supported")
				}
				memories++
			}
		}
		if err := r.skipImportDesc(); err != nil {
			return 0, 0, err
		}
	}
	return globals, memories, nil
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

// instrumentCode rewrites every function body of a code section.
func instrumentCode(sec []byte, check []byte) ([]byte, int, error) {
	r := &reader{b: sec}
	n, err := r.u32()
	if err != nil {
		return nil, 0, err
	}
	out := make([]byte, 0, len(sec)+len(sec)/16)
	out = append(out, leb(uint64(n))...)
	loops := 0
	var buf []byte
	for i := range n {
		size, err := r.u32()
		if err != nil {
			return nil, 0, err
		}
		if uint64(r.pos)+uint64(size) > uint64(len(r.b)) {
			return nil, 0, fmt.Errorf("function %d overruns the section", i)
		}
		body := r.b[r.pos : r.pos+int(size)]
		r.pos += int(size)
		var k int
		buf, k, err = instrumentBody(buf[:0], body, check)
		if err != nil {
			return nil, 0, fmt.Errorf("function %d: %w", i, err)
		}
		loops += k
		out = append(out, leb(uint64(len(buf)))...)
		out = append(out, buf...)
	}
	if r.pos != len(r.b) {
		return nil, 0, errors.New("trailing bytes after the last function")
	}
	return out, loops, nil
}

// instrumentBody appends body to out with check after every loop's block
// type.
func instrumentBody(out, body, check []byte) ([]byte, int, error) {
	r := &reader{b: body}
	groups, err := r.u32()
	if err != nil {
		return nil, 0, err
	}
	for range groups {
		if _, err := r.u32(); err != nil {
			return nil, 0, err
		}
		if err := r.skipValType(); err != nil {
			return nil, 0, err
		}
	}
	loops := 0
	last := 0 // body[last:r.pos] is not yet copied
	for r.pos < len(r.b) {
		op, _ := r.byte()
		if err := r.skipImmediates(op); err != nil {
			return nil, 0, fmt.Errorf("opcode 0x%02x at byte %d: %w", op, r.pos, err)
		}
		if op == opLoop {
			out = append(out, body[last:r.pos]...)
			out = append(out, check...)
			last = r.pos
			loops++
		}
	}
	return append(out, body[last:]...), loops, nil
}

func (r *reader) skipLEB() error {
	for i := 0; i < 10; i++ {
		c, err := r.byte()
		if err != nil {
			return err
		}
		if c&0x80 == 0 {
			return nil
		}
	}
	return errors.New("LEB128 number too long")
}

func (r *reader) skipN(n int) error {
	if r.pos+n > len(r.b) {
		return errShort
	}
	r.pos += n
	return nil
}

func (r *reader) skipLEBs(n int) error {
	for range n {
		if err := r.skipLEB(); err != nil {
			return err
		}
	}
	return nil
}

// skipValType skips a value type, including a typed reference (ref null?
// heaptype).
func (r *reader) skipValType() error {
	c, err := r.byte()
	if err != nil {
		return err
	}
	if c == 0x63 || c == 0x64 {
		return r.skipLEB()
	}
	return nil
}

// skipMemarg skips a memory immediate: alignment (bit 6 announces a
// memory index, multi-memory) and offset.
func (r *reader) skipMemarg() error {
	align, err := r.u32()
	if err != nil {
		return err
	}
	if align&0x40 != 0 {
		if err := r.skipLEB(); err != nil {
			return err
		}
	}
	return r.skipLEB()
}

var errUnknownOpcode = errors.New("unknown opcode")

// skipImmediates skips the immediates of op (WebAssembly 2.0 with tail
// calls, exceptions, typed function references, threads and SIMD).
func (r *reader) skipImmediates(op byte) error {
	switch {
	case op == 0x00 || op == 0x01 || op == 0x05 || op == 0x0a || op == 0x0b || op == 0x0f || op == 0x19 || op == 0x1a || op == 0x1b:
		return nil
	case op >= 0x02 && op <= 0x04, op == 0x06: // block, loop, if, try: block type
		return r.skipLEB()
	case op == 0x07 || op == 0x08 || op == 0x09 || op == 0x0c || op == 0x0d || op == 0x10 || op == 0x12 || op == 0x14 || op == 0x15 || op == 0x18:
		return r.skipLEB()
	case op == 0x0e: // br_table
		n, err := r.u32()
		if err != nil {
			return err
		}
		return r.skipLEBs(int(n) + 1)
	case op == 0x11 || op == 0x13: // call_indirect, return_call_indirect
		return r.skipLEBs(2)
	case op == 0x1c: // select t*
		n, err := r.u32()
		if err != nil {
			return err
		}
		for range n {
			if err := r.skipValType(); err != nil {
				return err
			}
		}
		return nil
	case op == 0x1f: // try_table
		if err := r.skipLEB(); err != nil {
			return err
		}
		n, err := r.u32()
		if err != nil {
			return err
		}
		for range n {
			kind, err := r.byte()
			if err != nil {
				return err
			}
			switch kind {
			case 0, 1:
				err = r.skipLEBs(2)
			case 2, 3:
				err = r.skipLEB()
			default:
				err = fmt.Errorf("unknown catch kind %d", kind)
			}
			if err != nil {
				return err
			}
		}
		return nil
	case op >= 0x20 && op <= 0x26: // locals, globals, table.get/set
		return r.skipLEB()
	case op >= 0x28 && op <= 0x3e: // loads and stores
		return r.skipMemarg()
	case op == 0x3f || op == 0x40: // memory.size, memory.grow
		return r.skipLEB()
	case op == 0x41 || op == 0x42:
		return r.skipLEB()
	case op == 0x43:
		return r.skipN(4)
	case op == 0x44:
		return r.skipN(8)
	case op >= 0x45 && op <= 0xc4:
		return nil
	case op == 0xd0 || op == 0xd2 || op == 0xd5 || op == 0xd6: // ref.null, ref.func, br_on_null, br_on_non_null
		return r.skipLEB()
	case op == 0xd1 || op == 0xd3 || op == 0xd4:
		return nil
	case op == 0xfc:
		return r.skipFC()
	case op == 0xfd:
		return r.skipSIMD()
	case op == 0xfe:
		return r.skipAtomic()
	}
	return errUnknownOpcode
}

func (r *reader) skipFC() error {
	sub, err := r.u32()
	if err != nil {
		return err
	}
	switch {
	case sub <= 7:
		return nil
	case sub == 8 || sub == 10 || sub == 12 || sub == 14: // memory.init, memory.copy, table.init, table.copy
		return r.skipLEBs(2)
	case sub == 9 || sub == 11 || sub == 13 || (sub >= 15 && sub <= 17):
		return r.skipLEB()
	}
	return fmt.Errorf("%w 0xfc %d", errUnknownOpcode, sub)
}

func (r *reader) skipSIMD() error {
	sub, err := r.u32()
	if err != nil {
		return err
	}
	switch {
	case sub <= 11, sub == 92 || sub == 93: // loads, stores, load_zero
		return r.skipMemarg()
	case sub == 12 || sub == 13: // v128.const, i8x16.shuffle
		return r.skipN(16)
	case sub >= 21 && sub <= 34: // extract/replace lane
		return r.skipN(1)
	case sub >= 84 && sub <= 91: // load/store lane
		if err := r.skipMemarg(); err != nil {
			return err
		}
		return r.skipN(1)
	case sub <= 0x113:
		return nil
	}
	return fmt.Errorf("%w 0xfd %d", errUnknownOpcode, sub)
}

func (r *reader) skipAtomic() error {
	sub, err := r.u32()
	if err != nil {
		return err
	}
	switch {
	case sub == 3: // atomic.fence
		return r.skipN(1)
	case sub <= 2, sub >= 0x10 && sub <= 0x4e:
		return r.skipMemarg()
	}
	return fmt.Errorf("%w 0xfe %d", errUnknownOpcode, sub)
}
