package search

import (
	"encoding/binary"
	"regexp/syntax"
	"slices"
)

// A pattern with no literal every match holds (`[A-Z]{4,}[0-9]+`) leaves
// grep running Go's regexp on every candidate line, and Go's engines (a
// backtracker for short inputs, else a Pike VM) try each start position
// in turn: that was two thirds of such a search. grep needs less than
// regexp gives: whether a line holds a match, not where. lineDFA answers
// exactly that with a lazily built DFA over the pattern's compiled
// program — one table lookup per byte, every start position at once
// (the start state is in every state), stopping at the first match.
//
// It handles what a line of ASCII text needs and leaves the rest to the
// regexp, so the answer is always the regexp's: a line with a byte ≥ 0x80
// (a rune's bytes need the rune decoded) and patterns with
// word boundaries (\b, \B look at the byte before) go to regexp.Match; so
// does everything once the DFA would exceed dfaMaxStates.

// dfaMaxStates bounds a DFA's states (each 512 bytes of table); a pattern
// that needs more is matched by the regexp.
const dfaMaxStates = 2048

// lineDFA is not safe for concurrent use: each grep worker has its own
// (newLineDFA from the shared program).
type lineDFA struct {
	prog   *syntax.Prog
	states []dfaState
	index  map[string]int32
	full   bool // dfaMaxStates reached: no new states
	empty  int8 // an empty line matches: 0 unknown, 1 no, 2 yes

	// scratch for closures
	stack []uint32
	on    []bool
	set   []uint32
	key   []byte
}

type dfaState struct {
	pcs   []uint32   // rune and empty-width instructions, sorted
	next  [128]int32 // by byte: the next state + 1; 0 unknown
	match bool       // a match ends here
	end   int8       // a match ends here at the line's end ($): 0 unknown, 1 no, 2 yes
}

// dfaProg compiles pattern for lineDFA, or returns nil when the pattern
// has something the DFA leaves to the regexp everywhere (word boundaries).
func dfaProg(pattern string) *syntax.Prog {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		return nil
	}
	for _, in := range prog.Inst {
		if in.Op == syntax.InstEmptyWidth && syntax.EmptyOp(in.Arg)&(syntax.EmptyWordBoundary|syntax.EmptyNoWordBoundary) != 0 {
			return nil
		}
	}
	return prog
}

func newLineDFA(prog *syntax.Prog) *lineDFA {
	if prog == nil {
		return nil
	}
	d := &lineDFA{prog: prog, index: map[string]int32{}, on: make([]bool, len(prog.Inst))}
	// State 0: the start at a line's beginning (^ holds there).
	d.add(d.closure(nil, syntax.EmptyBeginLine|syntax.EmptyBeginText))
	return d
}

// matchLine reports whether line (without its newline) holds a match.
// ok is false when the DFA cannot say; the caller asks the regexp.
func (d *lineDFA) matchLine(line []byte) (match, ok bool) {
	if len(line) == 0 {
		if d.empty == 0 {
			// Both ends of the line at once: ^ and $ hold together.
			_, match := d.closure(nil, syntax.EmptyBeginLine|syntax.EmptyBeginText|syntax.EmptyEndLine|syntax.EmptyEndText)
			d.empty = 1
			if match {
				d.empty = 2
			}
		}
		return d.empty == 2, true
	}
	s := int32(0)
	for _, b := range line {
		if b >= 0x80 {
			return false, false
		}
		st := &d.states[s]
		if st.match {
			return true, true
		}
		n := st.next[b] - 1
		if n < 0 {
			if n = d.step(s, b); n < 0 {
				return false, false
			}
		}
		s = n
	}
	st := &d.states[s]
	if st.match {
		return true, true
	}
	if st.end == 0 {
		st.end = 1
		if d.matchesAtEnd(st.pcs) {
			st.end = 2
		}
	}
	return st.end == 2, true
}

// step builds the transition of state s on byte b; -1 when the state
// limit is reached.
func (d *lineDFA) step(s int32, b byte) int32 {
	if d.full {
		// No new state can be made: say so before working out which
		// state it would have been (the regexp takes the line).
		return -1
	}
	var moved []uint32
	for _, pc := range d.states[s].pcs {
		in := &d.prog.Inst[pc]
		if consumes(in, rune(b)) {
			moved = append(moved, in.Out)
		}
	}
	n := d.add(d.closure(moved, 0))
	if n >= 0 {
		d.states[s].next[b] = n + 1
	}
	return n
}

// consumes reports whether instruction in matches the one-byte rune r.
func consumes(in *syntax.Inst, r rune) bool {
	switch in.Op {
	case syntax.InstRune:
		return in.MatchRune(r)
	case syntax.InstRune1:
		return r == in.Rune[0]
	case syntax.InstRuneAny:
		return true
	case syntax.InstRuneAnyNotNL:
		return r != '\n'
	}
	return false
}

// closure follows the empty transitions from pcs and from the program's
// start (a match may begin at any position), with the zero-width
// conditions in flags holding. It keeps the instructions that consume a
// rune, the empty-width ones whose condition did not hold (the line's end
// may satisfy them), and reports whether it reached a match.
func (d *lineDFA) closure(pcs []uint32, flags syntax.EmptyOp) (set []uint32, match bool) {
	return d.follow(append(append(d.stack[:0], uint32(d.prog.Start)), pcs...), flags)
}

// follow is closure from the instructions in roots alone; roots may be
// d.stack, which it uses as its work list.
func (d *lineDFA) follow(roots []uint32, flags syntax.EmptyOp) (set []uint32, match bool) {
	d.set = d.set[:0]
	d.stack = roots
	for len(d.stack) > 0 {
		pc := d.stack[len(d.stack)-1]
		d.stack = d.stack[:len(d.stack)-1]
		if d.on[pc] {
			continue
		}
		d.on[pc] = true
		in := &d.prog.Inst[pc]
		switch in.Op {
		case syntax.InstAlt, syntax.InstAltMatch:
			d.stack = append(d.stack, in.Arg, in.Out)
		case syntax.InstCapture, syntax.InstNop:
			d.stack = append(d.stack, in.Out)
		case syntax.InstEmptyWidth:
			if syntax.EmptyOp(in.Arg)&^flags == 0 {
				d.stack = append(d.stack, in.Out)
			} else {
				d.set = append(d.set, pc)
			}
		case syntax.InstMatch:
			match = true
		case syntax.InstFail:
		default: // rune instructions
			d.set = append(d.set, pc)
		}
	}
	for i := range d.on {
		d.on[i] = false
	}
	slices.Sort(d.set)
	return d.set, match
}

// add returns the state for set, creating it; -1 past the state limit.
func (d *lineDFA) add(set []uint32, match bool) int32 {
	d.key = d.key[:0]
	if match {
		d.key = append(d.key, 1)
	} else {
		d.key = append(d.key, 0)
	}
	for _, pc := range set {
		d.key = binary.LittleEndian.AppendUint32(d.key, pc)
	}
	if n, ok := d.index[string(d.key)]; ok {
		return n
	}
	if len(d.states) >= dfaMaxStates {
		d.full = true
		return -1
	}
	n := int32(len(d.states))
	d.states = append(d.states, dfaState{pcs: slices.Clone(set), match: match})
	d.index[string(d.key)] = n
	return n
}

// matchesAtEnd reports whether the empty-width instructions among pcs
// lead to a match at the end of a line ($ and \z hold there). The start's
// closure is not needed: it is in every state already.
func (d *lineDFA) matchesAtEnd(pcs []uint32) bool {
	waiting := d.stack[:0]
	for _, pc := range pcs {
		if d.prog.Inst[pc].Op == syntax.InstEmptyWidth {
			waiting = append(waiting, pc)
		}
	}
	if len(waiting) == 0 {
		return false
	}
	_, match := d.follow(waiting, syntax.EmptyEndLine|syntax.EmptyEndText)
	return match
}
