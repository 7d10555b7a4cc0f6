package search

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"unicode"
	"unicode/utf8"
)

// Matcher finds the lines that match a pattern (Compile); Grep runs one
// over a tree. It is safe for concurrent use: each of Grep's workers keeps
// its own DFA built from the shared program.
//
// When every match must contain one of a few literals (needles), it looks
// for them in the whole buffer with vectorised byte searches and runs the
// regexp only on the lines around the hits, which is what makes a Go regexp search competitive with
// ripgrep: most files are rejected without running the regexp at all.
type Matcher struct {
	re       *regexp.Regexp
	needles  []grepNeedle // every match contains one of them; nil when unknown
	complete bool         // the pattern is exactly needles[0]: a hit is a match
	run      *grepRun     // without needles: a run of bytes every match holds; nil when none
	prog     *syntax.Prog // for each worker's lineDFA (grep_dfa.go); nil: the regexp decides
}

// grepNeedle is a literal to look for; fold means ASCII case-insensitive
// (s is then lower case).
type grepNeedle struct {
	s    []byte
	fold bool
}

// grepMaxNeedles bounds the alternatives searched for: each one is a pass
// over the buffer.
const grepMaxNeedles = 8

// Compile compiles a pattern in Go's RE2 syntax. Its error says what is
// wrong with the pattern and how to write one that compiles, for a model
// to read.
func Compile(pattern string) (*Matcher, error) {
	re, err := regexp.Compile(pattern)
	if err != nil {
		msg := err.Error()
		var se *syntax.Error
		if errors.As(err, &se) {
			msg = fmt.Sprintf("%s in %q", se.Code, se.Expr)
		}
		return nil, fmt.Errorf("invalid regular expression %q: %s; the syntax is Go's RE2 (no lookaround or backreferences), escape special characters such as ( [ { . * + ? with a backslash", pattern, msg)
	}
	m := &Matcher{re: re}
	if prefix, complete := re.LiteralPrefix(); complete && prefix != "" {
		m.needles, m.complete = []grepNeedle{{s: []byte(prefix)}}, true
		return m, nil
	}
	m.prog = dfaProg(pattern)
	if parsed, err := syntax.Parse(pattern, syntax.Perl); err == nil {
		parsed = parsed.Simplify()
		if m.needles = requiredNeedles(parsed); m.needles == nil {
			m.run = requiredRun(parsed) // grep_runs.go
		}
	}
	return m, nil
}

// requiredNeedles returns literals one of which every match of re
// contains, the longest it can cheaply prove, or nil.
func requiredNeedles(re *syntax.Regexp) []grepNeedle {
	switch re.Op {
	case syntax.OpLiteral:
		return literalNeedle(re.Rune, re.Flags&syntax.FoldCase != 0)
	case syntax.OpCapture, syntax.OpPlus:
		return requiredNeedles(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredNeedles(re.Sub[0])
		}
	case syntax.OpAlternate:
		var all []grepNeedle
		for _, sub := range re.Sub {
			ns := requiredNeedles(sub)
			if ns == nil || len(all)+len(ns) > grepMaxNeedles {
				return nil
			}
			all = append(all, ns...)
		}
		return all
	case syntax.OpConcat:
		var best []grepNeedle
		consider := func(ns []grepNeedle) {
			if needlesScore(ns) > needlesScore(best) {
				best = ns
			}
		}
		// Adjacent literals with the same case rule form one longer needle.
		var run []rune
		runFold := false
		for _, sub := range re.Sub {
			if sub.Op == syntax.OpLiteral {
				fold := sub.Flags&syntax.FoldCase != 0
				if len(run) > 0 && fold != runFold {
					consider(literalNeedle(run, runFold))
					run = nil
				}
				run, runFold = append(run, sub.Rune...), fold
				continue
			}
			if len(run) > 0 {
				consider(literalNeedle(run, runFold))
				run = nil
			}
			consider(requiredNeedles(sub))
		}
		if len(run) > 0 {
			consider(literalNeedle(run, runFold))
		}
		return best
	}
	return nil
}

// needlesScore ranks needle sets: longer shortest needle first, then fewer
// needles, then case-sensitive ones.
func needlesScore(ns []grepNeedle) int {
	if len(ns) == 0 {
		return 0
	}
	shortest := len(ns[0].s)
	fold := 0
	for _, n := range ns {
		shortest = min(shortest, len(n.s))
		if n.fold {
			fold = 1
		}
	}
	return shortest*100 - len(ns)*2 - fold
}

// literalNeedle makes a needle of a literal. A case-insensitive one is
// reduced to its longest piece of ASCII characters whose only case
// variants are ASCII: Go folds k to the Kelvin sign and s to the long s,
// which an ASCII comparison would miss.
func literalNeedle(runes []rune, fold bool) []grepNeedle {
	if !fold {
		if len(runes) == 0 {
			return nil
		}
		return []grepNeedle{{s: []byte(string(runes))}}
	}
	var best, cur []byte
	for _, r := range runes {
		lr := unicode.ToLower(r)
		if r >= utf8.RuneSelf || lr == 'k' || lr == 's' {
			cur = nil
			continue
		}
		cur = append(cur, byte(lr))
		if len(cur) > len(best) {
			best = slices.Clone(cur)
		}
	}
	if len(best) == 0 {
		return nil
	}
	return []grepNeedle{{s: best, fold: true}}
}

// index returns the first position of n in buf, or -1.
func (n *grepNeedle) index(buf []byte) int {
	if !n.fold {
		return indexRare(buf, n.s)
	}
	// Look for the first byte in either case, then compare the rest.
	lo, up := n.s[0], n.s[0]
	if 'a' <= lo && lo <= 'z' {
		up = lo - 'a' + 'A'
	}
	nextLo, nextUp := -2, -2
	for pos := 0; pos+len(n.s) <= len(buf); {
		if nextLo != -1 && nextLo < pos {
			if nextLo = bytes.IndexByte(buf[pos:], lo); nextLo >= 0 {
				nextLo += pos
			}
		}
		if up != lo && nextUp != -1 && nextUp < pos {
			if nextUp = bytes.IndexByte(buf[pos:], up); nextUp >= 0 {
				nextUp += pos
			}
		}
		at := nextLo
		if up != lo && nextUp >= 0 && (at < 0 || nextUp < at) {
			at = nextUp
		}
		if at < 0 || at+len(n.s) > len(buf) {
			return -1
		}
		if equalFoldASCII(buf[at:at+len(n.s)], n.s) {
			return at
		}
		pos = at + 1
	}
	return -1
}

// indexRare is bytes.Index(buf, s), looking first for the byte of s that
// is rarest in text (byteCommonness) rather than its first byte: in source
// code "ErrUnexpectedEOF" starts with a letter found every few dozen bytes,
// and each false start costs a call and a comparison, while its F is far
// rarer. ripgrep chooses its needle byte the same way.
func indexRare(buf, s []byte) int {
	if len(s) < 2 {
		return bytes.Index(buf, s)
	}
	r := 0
	for i := 1; i < len(s); i++ {
		if byteCommonness[s[i]] < byteCommonness[s[r]] {
			r = i
		}
	}
	c := s[r]
	for pos := r; pos < len(buf); {
		i := bytes.IndexByte(buf[pos:], c)
		if i < 0 {
			return -1
		}
		start := pos + i - r
		if start+len(s) > len(buf) {
			return -1
		}
		if bytes.Equal(buf[start:start+len(s)], s) {
			return start
		}
		pos += i + 1
	}
	return -1
}

// byteCommonness ranks bytes by how often they appear in source code and
// text: 255 for the most common (space), 0 for the rarest. indexRare
// needs only a rough order. It was measured on about 200 MB of files of
// fifteen kinds found on a development machine — C, Go, Python, Perl,
// JavaScript, TypeScript, shell, HTML, CSS, XML, JSON, YAML, TOML,
// Markdown and plain text, each kind weighing the same, files with more
// than one control byte in a thousand left out. In code, upper-case
// letters follow other orders than in English prose: F (Func, False,
// Fatal, Fprintf) is more common than U, which an English-letter order
// ranked the other way.
var byteCommonness = [256]uint8{
	0, 24, 1, 2, 3, 4, 5, 27, 6, 228, 246, 28, 31, 80, 7, 8, // 0x0–0xf
	9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 26, 20, 21, 22, 23, // 0x10–0x1f
	255, 168, 239, 199, 184, 162, 176, 195, 222, 223, 207, 169, 227, 230, 235, 236, // 0x20–0x2f
	229, 221, 219, 212, 204, 202, 208, 192, 197, 196, 233, 205, 220, 225, 224, 163, // 0x30–0x3f
	166, 213, 183, 206, 191, 216, 189, 182, 177, 210, 164, 172, 198, 186, 194, 193, // 0x40–0x4f
	190, 159, 203, 215, 214, 181, 173, 171, 170, 167, 157, 188, 178, 187, 155, 231, // 0x50–0x5f
	185, 249, 232, 245, 243, 254, 237, 234, 238, 251, 180, 209, 244, 242, 250, 252, // 0x60–0x6f
	240, 175, 247, 248, 253, 241, 217, 211, 218, 226, 179, 201, 174, 200, 158, 25, // 0x70–0x7f
	154, 146, 150, 148, 109, 112, 82, 84, 122, 83, 87, 115, 125, 85, 69, 79, // 0x80–0x8f
	128, 74, 72, 81, 151, 138, 99, 76, 103, 107, 73, 90, 111, 102, 78, 104, // 0x90–0x9f
	161, 143, 77, 105, 137, 86, 95, 108, 117, 121, 100, 91, 89, 116, 75, 92, // 0xa0–0xaf
	145, 129, 98, 120, 130, 136, 97, 93, 141, 113, 132, 131, 142, 135, 134, 124, // 0xb0–0xbf
	63, 58, 160, 153, 110, 94, 67, 62, 59, 61, 60, 55, 64, 51, 139, 96, // 0xc0–0xcf
	165, 152, 65, 56, 54, 53, 57, 140, 118, 101, 44, 48, 40, 32, 38, 49, // 0xd0–0xdf
	66, 126, 156, 149, 114, 147, 144, 127, 133, 119, 68, 106, 123, 70, 52, 88, // 0xe0–0xef
	71, 36, 47, 45, 41, 33, 46, 37, 50, 34, 42, 35, 39, 43, 30, 29, // 0xf0–0xff
}

// equalFoldASCII reports whether b equals lower ignoring ASCII case.
func equalFoldASCII(b, lower []byte) bool {
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// searchBlock calls emit for each matching line of buf, which holds whole
// lines; lineNo is the number of buf's first line. Line numbers are counted
// only up to each match, so a file without matches is scanned by the needle
// search and nothing else.
//
// d, the calling worker's DFA for the pattern (nil: none), decides the
// lines it can; the regexp the others.
func (m *Matcher) searchBlock(buf []byte, lineNo int, d *lineDFA, emit func(lineNo int, line []byte)) {
	// next[i] is the next position of needle i at or after the last
	// search, -1 when there is none left; found lazily.
	var nextBuf [grepMaxNeedles]int
	next := nextBuf[:len(m.needles)]
	for i := range next {
		next[i] = -2
	}
	counted := 0 // lines before buf[counted:] are included in lineNo
	pos := 0     // always the start of a line
	for pos < len(buf) {
		var ls, le int
		if len(m.needles) > 0 {
			hit := -1
			for i := range m.needles {
				if next[i] == -2 || (next[i] >= 0 && next[i] < pos) {
					if next[i] = m.needles[i].index(buf[pos:]); next[i] >= 0 {
						next[i] += pos
					}
				}
				if next[i] >= 0 && (hit < 0 || next[i] < hit) {
					hit = next[i]
				}
			}
			if hit < 0 {
				return
			}
			ls = pos + bytes.LastIndexByte(buf[pos:hit], '\n') + 1
			le = bytes.IndexByte(buf[hit:], '\n')
			if le < 0 {
				le = len(buf)
			} else {
				le += hit
			}
		} else {
			ls = pos
			if m.run != nil {
				if ls = m.run.next(buf, pos); ls < 0 {
					return
				}
			}
			le = bytes.IndexByte(buf[ls:], '\n')
			if le < 0 {
				le = len(buf)
			} else {
				le += ls
			}
		}
		line := buf[ls:le]
		if m.complete || m.matchLine(d, line) {
			lineNo += bytes.Count(buf[counted:ls], []byte{'\n'})
			counted = ls
			emit(lineNo, line)
		}
		pos = le + 1
	}
}

// matchLine reports whether line holds a match: by the DFA when it can
// tell, else by the regexp.
func (m *Matcher) matchLine(d *lineDFA, line []byte) bool {
	if d != nil {
		if match, ok := d.matchLine(line); ok {
			return match
		}
	}
	return m.re.Match(line)
}
