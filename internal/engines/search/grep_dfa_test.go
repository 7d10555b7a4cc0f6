package search

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// dfaAgrees checks lineDFA against the regexp on every line: the DFA's
// answer, when it gives one, must be the regexp's.
func dfaAgrees(t *testing.T, pattern string, lines []string) (decided int) {
	t.Helper()
	m, err := Compile(pattern)
	if err != nil {
		t.Fatal(err)
	}
	d := newLineDFA(m.prog)
	if d == nil {
		return 0
	}
	for _, line := range lines {
		if strings.Contains(line, "\n") {
			continue
		}
		got, ok := d.matchLine([]byte(line))
		if !ok {
			continue
		}
		decided++
		if want := m.re.MatchString(line); got != want {
			t.Errorf("%q on %q: DFA says %v, regexp %v", pattern, line, got, want)
		}
	}
	return decided
}

func TestLineDFAAgreesWithTheRegexp(t *testing.T) {
	t.Parallel()
	lines := []string{
		"", "a", "ABCD1", "xx ABCD12 yy", "ABC1", "abcd1", "ERRNO42", "ERRNO", "42",
		"func (s *Server) Close() error {", "TODO: fix", "// FIXME later", "x TODO",
		"key", "KEY", "Key", "mask", "MASK", "1.2.3", "v10.20.30-rc", "deadbeef",
		"  indented", "trailing  ", "\ttab", "a\rb", "end$", "^start", "[brackets]",
		"café", "ABCD\u00e91", "Kelvin \u212Aey",
	}
	patterns := []string{
		`[A-Z]{4,}[0-9]+`, `[A-Z]{4}`, `[0-9]{3,}`, `\d+\.\d+\.\d+`, `[a-f0-9]{8}`,
		`^[A-Z]{2,}`, `[A-Z]{2,}$`, `^$`, `^`, `$`, `(?i)key`, `(?i)[k]{2}`, `(?i)MASK|todo`,
		`[^a-z ]{5}`, `[^\n]{3}x`, `\w{12,}`, `.`, `.+`, `a*`, `^\s+\S`, `\s+$`,
		`func \(\w+ \*\w+\) Close\(\)`, `TODO|FIXME|XXX`, `x?y?z?`, `(a|b)*c`,
		`^(?:foo|MASK)$`, `(?s).x`, `(?m)^T`, `(?U)a+?b`, `[[:upper:]]{3}`,
		`\Aend\$\z`, `\[brackets\]`, `a\rb`, `(?i)\w*é`,
	}
	total := 0
	for _, p := range patterns {
		total += dfaAgrees(t, p, lines)
	}
	if total < len(patterns)*len(lines)/2 {
		t.Errorf("the DFA decided only %d of %d cases; it should decide every ASCII, non-empty line", total, len(patterns)*len(lines))
	}
}

func TestLineDFALeavesWordBoundariesAndNonASCIIToTheRegexp(t *testing.T) {
	t.Parallel()
	if dfaProg(`\bTODO\b`) != nil || dfaProg(`a\Bb`) != nil {
		t.Error("a pattern with word boundaries got a DFA")
	}
	d := newLineDFA(dfaProg(`caf.`))
	if _, ok := d.matchLine([]byte("café")); ok {
		t.Error("the DFA decided a line with a multi-byte rune")
	}
}

func TestLineDFAStopsGrowingAtItsStateLimit(t *testing.T) {
	t.Parallel()
	// (a|b)*a(a|b){12}: a DFA needs 2^13 states for it.
	m, err := Compile(`[ab]*a[ab]{12}`)
	if err != nil {
		t.Fatal(err)
	}
	d := newLineDFA(m.prog)
	line := []byte(strings.Repeat("ab", 4000) + "bbbbbbbbbbbbb")
	for i := 0; i < 200; i++ {
		line[i*37%len(line)] ^= 'a' ^ 'b'
		got, ok := d.matchLine(line)
		if ok && got != m.re.Match(line) {
			t.Fatalf("DFA %v, regexp %v", got, !got)
		}
	}
	if len(d.states) > dfaMaxStates {
		t.Errorf("%d states, limit %d", len(d.states), dfaMaxStates)
	}
}

func FuzzLineDFA(f *testing.F) {
	for _, s := range []struct{ pattern, line string }{
		{`[A-Z]{4,}[0-9]+`, "xx ABCD12"}, {`^a|b$`, "cab"}, {`(?i)k+`, "K"}, {`x?$`, "y"}, {`[^a]{2}`, "ab"},
	} {
		f.Add(s.pattern, s.line)
	}
	f.Fuzz(func(t *testing.T, pattern, line string) {
		if !utf8.ValidString(pattern) || len(pattern) > 64 || len(line) > 256 {
			return
		}
		m, err := Compile(pattern)
		if err != nil {
			return
		}
		d := newLineDFA(m.prog)
		if d == nil {
			return
		}
		for _, l := range strings.Split(line, "\n") {
			if got, ok := d.matchLine([]byte(l)); ok && got != m.re.MatchString(l) {
				t.Fatalf("%q on %q: DFA %v, regexp %v", pattern, l, got, !got)
			}
		}
	})
}
