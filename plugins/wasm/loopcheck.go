package wasm

import (
	"errors"
	"fmt"
)

// The code instrumentLoops adds to each function (interrupt.go says why).

// Opcodes the instrumentation writes or watches.
const (
	opUnreach     = 0x00
	opBlock       = 0x02
	opLoop        = 0x03
	opIf          = 0x04
	opEnd         = 0x0b
	opBr          = 0x0c
	opBrIf        = 0x0d
	opBrTable     = 0x0e
	opReturn      = 0x0f
	opCall        = 0x10
	opCallInd     = 0x11
	opRetCall     = 0x12
	opRetCallInd  = 0x13
	opCallRef     = 0x14
	opRetCallRef  = 0x15
	opLocalGet    = 0x20
	opLocalSet    = 0x21
	opLocalTee    = 0x22
	opGlobalGet   = 0x23
	opGlobalSet   = 0x24
	opI32Const    = 0x41
	opI32GtS      = 0x4a
	opI32LeS      = 0x4c
	opI32GeU      = 0x4f
	opI32Add      = 0x6a
	opI32Sub      = 0x6b
	opI32ShrU     = 0x76
	opPrefixFC    = 0xfc
	opMemGrow     = 0x40
	opDrop        = 0x1a
	opRefFunc     = 0xd2
	opBrOnNull    = 0xd5
	opBrOnNonNull = 0xd6
)

// exceptionOps are the opcodes of exception handling, whose control flow
// (a throw leaving many frames, a catch branching to a label) the
// instrumentation does not follow: a module using them is refused.
var exceptionOps = map[byte]string{0x06: "try", 0x07: "catch", 0x08: "throw", 0x09: "rethrow", 0x0a: "throw_ref", 0x18: "delegate", 0x19: "catch_all", 0x1f: "try_table"}

// flushType is the type of $flush: (i32) -> ().
var flushType = []byte{0x60, 1, 0x7f, 0}

// loopPlan is what instrumentWith adds to each function, and the index
// spaces the module's own code must stay inside.
type loopPlan struct {
	every      int32 // loop iterations counted in a register between flushes
	countCalls bool  // a function that calls another counts its entry
	// noResume flushes every loop with a plain call of $flush (see
	// resumeFunc); it is there to measure what resuming saves.
	noResume bool
	globals  uint64
	funcs    uint64 // the module's functions, imported and defined
	flush    uint64 // the index of $flush (= funcs)
}

// maxResume is the most locals a resume function passes through.
const maxResume = 64

// flushBody is $flush(n): trap if the flag is set; take a positive n
// from the budget; when the budget is spent, refill it and leave native
// code (memory.grow 0), then look at the flag again.
func (p *loopPlan) flushBody() []byte {
	flag, budget := leb(p.globals), leb(p.globals+1)
	trapIfStopped := append(append([]byte{opGlobalGet}, flag...), opIf, blockEmpty, opUnreach, opEnd)
	b := []byte{0} // no locals
	b = append(b, trapIfStopped...)
	b = append(b, opLocalGet, 0, opI32Const, 0, opI32GtS, opIf, blockEmpty, opGlobalGet)
	b = append(append(b, budget...), opLocalGet, 0, opI32Sub, opGlobalSet)
	b = append(append(b, budget...), opEnd, opGlobalGet)
	b = append(append(b, budget...), opI32Const, 0, opI32LeS, opIf, blockEmpty, opI32Const)
	b = append(append(b, sleb32(yieldEvery)...), opGlobalSet)
	b = append(append(b, budget...), opI32Const, 0, opMemGrow, 0, opDrop)
	b = append(b, trapIfStopped...)
	return append(b, opEnd, opEnd)
}

// instrumented is what instrumentCode adds besides the checks: function
// types, and functions ($flush, then the resume functions) with their
// types as indices into types.
type instrumented struct {
	types     [][]byte
	funcTypes []int
	bodies    [][]byte
	resume    map[string]uint64 // a resume function's index by the types it passes
	bulk      uint64            // the index of $bulk, 0 until it is added
	loops     int
}

// resumeFunc returns the index of the function that flushes a count and
// gives back the locals it was passed: (i32, types...) -> (types...).
//
// A loop whose body makes no call keeps its variables in registers. A
// call in it — even one on a path taken once in a thousand iterations —
// makes wazero's register allocator store every loop variable to the
// stack at each iteration, because a call clobbers the registers and a
// loop variable is spilled wherever it is defined. Passing the locals
// the loop sets through the call, and branching back to the loop's top
// with the values it returns, leaves no loop variable alive across the
// call (the locals the loop only reads are defined before it, and
// spilled there). The loop keeps its registers and pays for its counter.
func (a *instrumented) resumeFunc(p *loopPlan, types []byte) uint64 {
	if i, ok := a.resume[string(types)]; ok {
		return i
	}
	i := p.flush + uint64(len(a.bodies))
	a.resume[string(types)] = i
	typ := append([]byte{0x60}, leb(uint64(len(types))+1)...)
	typ = append(append(typ, 0x7f), types...)
	typ = append(append(typ, leb(uint64(len(types)))...), types...)
	a.types = append(a.types, typ)
	a.funcTypes = append(a.funcTypes, len(a.types)-1)
	body := append([]byte{0, opLocalGet, 0, opCall}, leb(p.flush)...)
	for k := range types {
		body = append(append(body, opLocalGet), leb(uint64(k)+1)...)
	}
	a.bodies = append(a.bodies, append(body, opEnd))
	return i
}

// instrumentCode rewrites every function body of a code section and
// appends the bodies of the functions it adds.
func (p *loopPlan) instrumentCode(sec []byte, m *moduleShape) ([]byte, instrumented, error) {
	a := instrumented{types: [][]byte{flushType}, funcTypes: []int{0}, bodies: [][]byte{p.flushBody()}, resume: map[string]uint64{}}
	r := &reader{b: sec}
	n, err := r.u32()
	if err != nil {
		return nil, a, err
	}
	if int(n) != len(m.funcTypes) {
		return nil, a, fmt.Errorf("%d bodies for %d functions", n, len(m.funcTypes))
	}
	out := make([]byte, 0, len(sec)+len(sec)/8)
	var buf []byte
	for i := range n {
		size, err := r.u32()
		if err != nil {
			return nil, a, err
		}
		if uint64(r.pos)+uint64(size) > uint64(len(r.b)) {
			return nil, a, fmt.Errorf("function %d overruns the section", i)
		}
		body := r.b[r.pos : r.pos+int(size)]
		r.pos += int(size)
		if buf, err = p.instrumentBody(buf[:0], body, m.typeParams[m.funcTypes[i]], m.typeParams, &a); err != nil {
			return nil, a, fmt.Errorf("function %d: %w", i, err)
		}
		out = append(out, leb(uint64(len(buf)))...)
		out = append(out, buf...)
		if len(out) > maxGrowth*len(sec)+1<<16 {
			return nil, a, fmt.Errorf("the checks would make the code more than %d times larger", maxGrowth)
		}
	}
	if r.pos != len(r.b) {
		return nil, a, errors.New("trailing bytes after the last function")
	}
	for _, b := range a.bodies {
		out = append(append(out, leb(uint64(len(b)))...), b...)
	}
	return append(leb(uint64(n)+uint64(len(a.bodies))), out...), a, nil
}

// A point of a body where code is added.
type insertion struct {
	pos  int
	loop int  // ≥ 0: the check of loop number loop goes at pos (after its block type)
	cont bool // an exit that may not be taken: the counter is reset after the flush
	bulk bool // a bulk operation: its size goes through $bulk (bulkFunc)
}

// loopInfo is what a body says of one of its loops.
type loopInfo struct {
	targeted bool   // a branch repeats it
	calls    bool   // its body calls a function
	params   bool   // its block type takes parameters
	writes   uint64 // the locals its body sets, while there are at most maxResume
	start    int    // where its body starts
	cost     uint64 // its body's bytes, and bigLeaf for each call in it, once it ends
}

// simpleTypes are the value types encoded in one byte that a resume
// function passes through.
var simpleTypes = map[byte]bool{0x7f: true, 0x7e: true, 0x7d: true, 0x7c: true, 0x7b: true, 0x70: true, 0x6f: true}

// instrumentBody appends body to out with a counter when it can run
// long: a check after the block type of every loop a branch targets, a
// flush before every way out of the function, and the entry counted when
// it calls other functions (p.countCalls).
func (p *loopPlan) instrumentBody(out, body, params []byte, types [][]byte, a *instrumented) ([]byte, error) {
	// The locals: the parameters', then the groups'. localTypes lists
	// them for a resume function while they are few and simple.
	localTypes, simple := []byte(nil), true
	locals := uint64(0)
	for pr := (&reader{b: params}); pr.pos < len(pr.b); locals++ {
		start := pr.pos
		if err := pr.skipValType(); err != nil {
			return nil, err
		}
		localTypes = append(localTypes, params[start:pr.pos]...)
		simple = simple && pr.pos-start == 1 && simpleTypes[params[start]]
	}
	r := &reader{b: body}
	groups, err := r.u32()
	if err != nil {
		return nil, err
	}
	groupsStart := r.pos
	for range groups {
		n, err := r.u32()
		if err != nil {
			return nil, err
		}
		if locals += uint64(n); locals > 1<<20 {
			return nil, errors.New("too many locals")
		}
		start := r.pos
		if err := r.skipValType(); err != nil {
			return nil, err
		}
		simple = simple && r.pos-start == 1 && simpleTypes[body[start]] && locals <= maxResume
		for i := uint32(0); simple && i < n; i++ {
			localTypes = append(localTypes, body[start])
		}
	}
	simple = simple && locals <= maxResume
	codeStart := r.pos
	var (
		stack []int // open blocks: the loop number of a loop, -1 for other blocks
		open  []int // the open loops, innermost last: what a body does is marked on the innermost, and handed outwards at its end
		loops []loopInfo
		at    []insertion
		calls bool
		ended bool
	)
	exit := func(pos int, cont bool) { at = append(at, insertion{pos: pos, loop: -1, cont: cont}) }
	// branch records a branch to label depth d at pos.
	branch := func(d uint32, pos int, cont bool) error {
		switch {
		case int(d) < len(stack):
			if l := stack[len(stack)-1-int(d)]; l >= 0 {
				loops[l].targeted = true
			}
		case int(d) == len(stack):
			exit(pos, cont)
		default:
			return fmt.Errorf("branch depth %d out of range", d)
		}
		return nil
	}
	index := func(limit uint64, what string) error {
		i, err := r.u32()
		if err == nil && uint64(i) >= limit {
			err = fmt.Errorf("%s index %d out of range", what, i)
		}
		return err
	}
	// call records a call at pos. What the function counted is flushed
	// before it: a recursion that never returns — each frame looping
	// under a flush's count, then calling itself again, millions of
	// frames deep — meets a flush in every frame on its way down.
	call := func(pos int, op byte) {
		calls = true
		if len(open) > 0 {
			loops[open[len(open)-1]].calls = true
			loops[open[len(open)-1]].cost += bigLeaf
		}
		if p.countCalls && op != opRetCall && op != opRetCallInd && op != opRetCallRef {
			exit(pos, true)
		}
	}
	for r.pos < len(r.b) {
		if ended {
			return nil, errors.New("code after the function's end")
		}
		pos := r.pos
		op, _ := r.byte()
		if name, ok := exceptionOps[op]; ok {
			return nil, fmt.Errorf("exception handling (%s) is not supported", name)
		}
		switch op {
		case opBlock, opIf:
			_, err = r.blockParams(types)
			stack = append(stack, -1)
		case opLoop:
			var params bool
			params, err = r.blockParams(types)
			stack = append(stack, len(loops))
			open = append(open, len(loops))
			at = append(at, insertion{pos: r.pos, loop: len(loops)})
			loops = append(loops, loopInfo{params: params, start: r.pos})
		case opEnd:
			if len(stack) == 0 {
				exit(pos, false)
				ended = true
			} else {
				if l := stack[len(stack)-1]; l >= 0 {
					open = open[:len(open)-1]
					loops[l].cost += uint64(pos - loops[l].start)
					if len(open) > 0 {
						outer := &loops[open[len(open)-1]]
						outer.calls = outer.calls || loops[l].calls
						outer.writes |= loops[l].writes
						outer.cost += loops[l].cost - uint64(pos-loops[l].start) // its calls; its bytes are the outer's too
					}
				}
				stack = stack[:len(stack)-1]
			}
		case opBr, opBrIf, opBrOnNull, opBrOnNonNull:
			var d uint32
			if d, err = r.u32(); err == nil {
				err = branch(d, pos, op != opBr)
			}
		case opBrTable:
			var n uint32
			n, err = r.u32()
			exits := false
			for i := uint32(0); err == nil && i <= n; i++ {
				var d uint32
				if d, err = r.u32(); err == nil {
					exits = exits || int(d) == len(stack)
					if int(d) != len(stack) {
						err = branch(d, pos, true)
					}
				}
			}
			if err == nil && exits {
				exit(pos, true) // flushed before the table, whichever target it takes
			}
		case opReturn:
			exit(pos, false)
		case opCall, opRetCall:
			call(pos, op)
			if err = index(p.funcs, "function"); err == nil && op == opRetCall {
				exit(pos, false)
			}
		case opRefFunc:
			err = index(p.funcs, "function")
		case opCallInd, opRetCallInd, opCallRef, opRetCallRef:
			call(pos, op)
			err = index(uint64(len(types)), "type")
			if err == nil && (op == opCallInd || op == opRetCallInd) {
				err = r.skipLEB() // the table
			}
			if err == nil && (op == opRetCallInd || op == opRetCallRef) {
				exit(pos, false)
			}
		case opLocalGet:
			err = index(locals, "local")
		case opLocalSet, opLocalTee:
			var i uint32
			if i, err = r.u32(); err == nil && uint64(i) >= locals {
				err = fmt.Errorf("local index %d out of range", i)
			}
			if len(open) > 0 && i < maxResume {
				loops[open[len(open)-1]].writes |= 1 << i
			}
		case opGlobalGet, opGlobalSet:
			err = index(p.globals, "global")
		case opPrefixFC:
			if sub, _ := (&reader{b: r.b, pos: r.pos}).u32(); bulkOps[sub] {
				at = append(at, insertion{pos: pos, loop: -1, bulk: true})
				if len(open) > 0 {
					loops[open[len(open)-1]].calls = true // it calls $bulk
				}
			}
			err = r.skipFC()
		default:
			err = r.skipImmediates(op)
		}
		if err != nil {
			return nil, fmt.Errorf("opcode 0x%02x at byte %d: %w", op, pos, err)
		}
	}
	if !ended {
		return nil, errors.New("the function has no end")
	}
	targeted := 0
	for _, l := range loops {
		if l.targeted {
			targeted++
		}
	}
	a.loops += targeted
	countEntry := p.countCalls && (calls || len(body) >= bigLeaf)
	bulk := false
	for _, in := range at {
		bulk = bulk || in.bulk
	}
	if targeted == 0 && !countEntry && !bulk {
		return append(out, body...), nil
	}

	// The counter is a new local after the others.
	c := leb(locals)
	out = append(out, leb(uint64(groups)+1)...)
	out = append(out, body[groupsStart:codeStart]...)
	out = append(out, 1, 0x7f)
	if countEntry {
		out = append(append(append(out, opI32Const), sleb32(weight(uint64(len(body))))...), opLocalSet)
		out = append(out, c...)
	}
	getC := append([]byte{opLocalGet}, c...)
	resetC := append([]byte{opI32Const, 0, opLocalSet}, c...)
	flush := append(append(getC[:len(getC):len(getC)], opCall), leb(p.flush)...)
	// count: c += the loop's weight; if c >= every { … }
	count := func(l loopInfo) []byte {
		b := append(append(getC[:len(getC):len(getC)], opI32Const), sleb32(weight(l.cost))...)
		b = append(append(append(b, opI32Add, opLocalTee), c...), opI32Const)
		return append(append(b, sleb32(p.every)...), opI32GeU, opIf, blockEmpty)
	}
	check := func(l loopInfo) []byte {
		return append(append(append(count(l), flush...), resetC...), opEnd)
	}
	// … or, in a loop that makes no call, the same with the locals the
	// loop sets passed through a resume function, and br to the loop's top.
	resume := func(l loopInfo) []byte {
		b := append(count(l), getC...)
		var types []byte
		for i := range locals {
			if l.writes&(1<<i) != 0 {
				b = append(append(b, opLocalGet), leb(i)...)
				types = append(types, localTypes[i])
			}
		}
		b = append(append(b, opCall), leb(a.resumeFunc(p, types))...)
		for i := locals; i > 0; i-- {
			if l.writes&(1<<(i-1)) != 0 {
				b = append(append(b, opLocalSet), leb(i-1)...)
			}
		}
		return append(append(b, resetC...), opBr, 1, opEnd)
	}
	last := codeStart
	for _, in := range at {
		if in.loop >= 0 && !loops[in.loop].targeted {
			continue
		}
		out = append(out, body[last:in.pos]...)
		last = in.pos
		if in.bulk {
			out = append(append(out, opCall), leb(a.bulkFunc(p))...)
			continue
		}
		if in.loop >= 0 {
			if l := loops[in.loop]; simple && !p.noResume && !l.calls && !l.params {
				out = append(out, resume(l)...)
			} else {
				out = append(out, check(l)...)
			}
			continue
		}
		// An exit: flush what the function counted, if anything.
		out = append(append(out, getC...), opIf, blockEmpty)
		out = append(out, flush...)
		if in.cont {
			out = append(out, resetC...)
		}
		out = append(out, opEnd)
	}
	return append(out, body[last:]...), nil
}

// blockParams reads a block type and says whether it takes parameters:
// the empty type, a value type, or the index of a function type.
func (r *reader) blockParams(types [][]byte) (bool, error) {
	if r.pos >= len(r.b) {
		return false, errShort
	}
	switch c := r.b[r.pos]; {
	case c == 0x63 || c == 0x64: // (ref null? heaptype)
		return false, r.skipValType()
	case c >= 0x40 && c < 0x80: // the empty type or a value type
		r.pos++
		return false, nil
	}
	i, err := r.u32()
	if err != nil {
		return false, err
	}
	if int(i) >= len(types) {
		return false, fmt.Errorf("block type index %d out of range", i)
	}
	return len(types[i]) > 0, nil
}
