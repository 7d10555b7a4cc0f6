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
	globals    uint64
	funcs      uint64 // the module's functions, imported and defined
	flush      uint64 // the index of $flush (= funcs)
	xTrap      bool
	xFlag      bool
}

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

// instrumentCode rewrites every function body of a code section and
// appends $flush's.
func (p *loopPlan) instrumentCode(sec []byte, m *moduleShape) ([]byte, int, error) {
	r := &reader{b: sec}
	n, err := r.u32()
	if err != nil {
		return nil, 0, err
	}
	if int(n) != len(m.funcTypes) {
		return nil, 0, fmt.Errorf("%d bodies for %d functions", n, len(m.funcTypes))
	}
	out := make([]byte, 0, len(sec)+len(sec)/8)
	out = append(out, leb(uint64(n)+1)...)
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
		buf, k, err = p.instrumentBody(buf[:0], body, m.typeParams[m.funcTypes[i]])
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
	flush := p.flushBody()
	out = append(out, leb(uint64(len(flush)))...)
	return append(out, flush...), loops, nil
}

// A point of a body where code is added.
type insertion struct {
	pos  int
	loop int  // ≥ 0: the check of loop number loop goes at pos (after its block type)
	cont bool // an exit that may not be taken: the counter is reset after the flush
}

// instrumentBody appends body to out with a counter when it can run
// long: a check after the block type of every loop a branch targets, a
// flush before every way out of the function, and the entry counted when
// it calls other functions (p.countCalls).
func (p *loopPlan) instrumentBody(out, body []byte, params uint64) ([]byte, int, error) {
	r := &reader{b: body}
	groups, err := r.u32()
	if err != nil {
		return nil, 0, err
	}
	groupsStart := r.pos
	locals := params
	for range groups {
		n, err := r.u32()
		if err != nil {
			return nil, 0, err
		}
		if locals += uint64(n); locals > 1<<20 {
			return nil, 0, errors.New("too many locals")
		}
		if err := r.skipValType(); err != nil {
			return nil, 0, err
		}
	}
	codeStart := r.pos
	var (
		stack    []int // open blocks: the loop number of a loop, -1 for other blocks
		targeted []bool
		at       []insertion
		calls    bool
		ended    bool
	)
	exit := func(pos int, cont bool) { at = append(at, insertion{pos: pos, loop: -1, cont: cont}) }
	// branch records a branch to label depth d at pos.
	branch := func(d uint32, pos int, cont bool) error {
		switch {
		case int(d) < len(stack):
			if l := stack[len(stack)-1-int(d)]; l >= 0 {
				targeted[l] = true
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
	for r.pos < len(r.b) {
		if ended {
			return nil, 0, errors.New("code after the function's end")
		}
		pos := r.pos
		op, _ := r.byte()
		if name, ok := exceptionOps[op]; ok {
			return nil, 0, fmt.Errorf("exception handling (%s) is not supported", name)
		}
		switch op {
		case opBlock, opIf:
			err = r.skipLEB()
			stack = append(stack, -1)
		case opLoop:
			err = r.skipLEB()
			stack = append(stack, len(targeted))
			at = append(at, insertion{pos: r.pos, loop: len(targeted)})
			targeted = append(targeted, false)
		case opEnd:
			if len(stack) == 0 {
				exit(pos, false)
				ended = true
			} else {
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
			calls = true
			if err = index(p.funcs, "function"); err == nil && op == opRetCall {
				exit(pos, false)
			}
		case opRefFunc:
			err = index(p.funcs, "function")
		case opCallInd, opRetCallInd, opCallRef, opRetCallRef:
			calls = true
			if err = r.skipImmediates(op); err == nil && (op == opRetCallInd || op == opRetCallRef) {
				exit(pos, false)
			}
		case opLocalGet, opLocalSet, opLocalTee:
			err = index(locals, "local")
		case opGlobalGet, opGlobalSet:
			err = index(p.globals, "global")
		default:
			err = r.skipImmediates(op)
		}
		if err != nil {
			return nil, 0, fmt.Errorf("opcode 0x%02x at byte %d: %w", op, pos, err)
		}
	}
	if !ended {
		return nil, 0, errors.New("the function has no end")
	}
	loops := 0
	for _, t := range targeted {
		if t {
			loops++
		}
	}
	countEntry := calls && p.countCalls
	if loops == 0 && !countEntry {
		return append(out, body...), 0, nil
	}

	// The counter is a new local after the others.
	c := leb(locals)
	out = append(out, leb(uint64(groups)+1)...)
	out = append(out, body[groupsStart:codeStart]...)
	out = append(out, 1, 0x7f)
	if countEntry {
		out = append(append(out, opI32Const, 1, opLocalSet), c...)
	}
	flush := append(append(append([]byte{opLocalGet}, c...), opCall), leb(p.flush)...)
	check := append(append([]byte{opLocalGet}, c...), opI32Const, 1, opI32Add, opLocalTee)
	check = append(append(check, c...), opI32Const)
	check = append(append(check, sleb32(p.every)...), opI32GeU, opIf, blockEmpty)
	check = append(append(check, flush...), opI32Const, 0, opLocalSet)
	check = append(append(check, c...), opEnd)
	if p.xTrap {
		check = append(append([]byte{opLocalGet}, c...), opI32Const, 1, opI32Add, opLocalTee)
		check = append(append(check, c...), opI32Const)
		check = append(append(check, sleb32(p.every)...), opI32GeU, opIf, blockEmpty, opUnreach, opEnd)
	}
	if p.xFlag {
		check = append(append([]byte{opGlobalGet}, leb(p.globals)...), opIf, blockEmpty, opUnreach, opEnd)
	}
	last := codeStart
	for _, in := range at {
		if in.loop >= 0 && !targeted[in.loop] {
			continue
		}
		out = append(out, body[last:in.pos]...)
		last = in.pos
		if in.loop >= 0 {
			out = append(out, check...)
			continue
		}
		// An exit: flush what the function counted, if anything.
		out = append(append(out, opLocalGet), c...)
		out = append(append(out, opIf, blockEmpty), flush...)
		if in.cont {
			out = append(append(out, opI32Const, 0, opLocalSet), c...)
		}
		out = append(out, opEnd)
	}
	return append(out, body[last:]...), loops, nil
}
