package search

import (
	"bytes"
	"regexp/syntax"
	"unicode"
)

// grepRun is the prefilter for patterns without a required literal: every
// match contains at least min consecutive bytes from set (`[A-Z]{4,}[0-9]+`
// needs four capitals in a row). One table lookup per byte over the whole
// buffer finds the few lines that have such a run; the regexp runs only on
// those. Go's regexp costs a few hundred nanoseconds per line however short
// the line, which made such a search 7–10× slower than ripgrep when it ran
// on every line.
type grepRun struct {
	set [256]bool
	min int
}

// grepRunMaxPass is the most a run prefilter may let through, estimated as
// (|set|/256)^min for one position; a looser one only costs the scan.
const grepRunMaxPass = 0.02

// requiredRun returns the most selective run every match of re (simplified)
// contains, or nil when it finds none selective enough. Within a
// concatenation, neighbouring character elements make one run: the union
// of their sets, the sum of their minimum counts (Simplify turns
// [A-Z]{4,} into four classes and a star).
func requiredRun(re *syntax.Regexp) *grepRun {
	var best *grepRun
	pass := grepRunMaxPass
	consider := func(r *grepRun) {
		if r == nil || r.min == 0 {
			return
		}
		if p := r.pass(); p < pass {
			best, pass = r, p
		}
	}
	var visit func(re *syntax.Regexp)
	visit = func(re *syntax.Regexp) {
		switch re.Op {
		case syntax.OpCapture:
			visit(re.Sub[0])
		case syntax.OpConcat:
			for i := range re.Sub {
				var acc *grepRun
				for _, sub := range re.Sub[i:] {
					e := charRun(sub)
					if e == nil {
						break
					}
					acc = acc.join(e)
					consider(acc)
				}
				visit(re.Sub[i])
			}
		default:
			consider(charRun(re))
		}
	}
	visit(re)
	return best
}

// pass estimates the share of positions where a run starts.
func (r *grepRun) pass() float64 {
	n := 0
	for _, in := range r.set {
		if in {
			n++
		}
	}
	p := 1.0
	for range r.min {
		p *= float64(n) / 256
	}
	return p
}

// join is the run of r followed by e (r may be nil).
func (r *grepRun) join(e *grepRun) *grepRun {
	if r == nil {
		c := *e
		return &c
	}
	j := &grepRun{min: r.min + e.min}
	for i := range j.set {
		j.set[i] = r.set[i] || e.set[i]
	}
	return j
}

// charRun is the run an element of characters makes: a class or literal,
// a repetition of one (min 0 for * and ?), a group or concatenation of
// such, or nil for anything else.
// A class with runes beyond ASCII admits every byte ≥ 0x80: each such rune
// is one or more of them, so the run is still at least min bytes long. A
// newline never counts: lines are matched one at a time, so no match
// holds one.
func charRun(re *syntax.Regexp) *grepRun {
	r := &grepRun{}
	switch re.Op {
	case syntax.OpCharClass:
		for i := 0; i+1 < len(re.Rune); i += 2 {
			r.addRange(re.Rune[i], re.Rune[i+1])
		}
		r.min = 1
	case syntax.OpLiteral:
		for _, c := range re.Rune {
			r.addRange(c, c)
			if re.Flags&syntax.FoldCase != 0 {
				for o := unicode.SimpleFold(c); o != c; o = unicode.SimpleFold(o) {
					r.addRange(o, o)
				}
			}
		}
		r.min = len(re.Rune)
	case syntax.OpConcat:
		var acc *grepRun
		for _, sub := range re.Sub {
			e := charRun(sub)
			if e == nil {
				return nil
			}
			acc = acc.join(e)
		}
		if acc == nil {
			return nil
		}
		r = acc
	case syntax.OpCapture:
		return charRun(re.Sub[0])
	case syntax.OpPlus, syntax.OpStar, syntax.OpQuest, syntax.OpRepeat:
		sub := charRun(re.Sub[0])
		if sub == nil {
			return nil
		}
		r.set = sub.set
		switch re.Op {
		case syntax.OpPlus:
			r.min = sub.min
		case syntax.OpRepeat:
			r.min = sub.min * re.Min
		}
	default:
		return nil
	}
	r.set['\n'] = false
	return r
}

func (r *grepRun) addRange(lo, hi rune) {
	for c := lo; c <= hi && c < 0x80; c++ {
		r.set[c] = true
	}
	if hi >= 0x80 {
		for b := 0x80; b < 0x100; b++ {
			r.set[b] = true
		}
	}
}

// next returns the start of the first line at or after pos that holds a
// run, or -1.
func (r *grepRun) next(buf []byte, pos int) int {
	run := 0
	for i := pos; i < len(buf); i++ {
		if !r.set[buf[i]] {
			run = 0
			continue
		}
		if run++; run >= r.min {
			return bytes.LastIndexByte(buf[:i], '\n') + 1
		}
	}
	return -1
}
