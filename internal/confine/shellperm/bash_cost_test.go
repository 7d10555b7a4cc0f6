//go:build unix

package shellperm

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// hostileCostInputs are command lines built to make the analysis slow: each
// once took seconds to minutes, or would have exhausted memory. The analysis
// runs before every bash call, so its cost must stay linear in the command
// line's length.
var hostileCostInputs = []struct{ name, command string }{
	{"cds that each double the candidate directories", strings.Repeat("cd d;", 40) + "cat x"},
	{"thousands of cds", strings.Repeat("cd d;", 5000) + "cat x"},
	{"brace pairs that double the words", strings.Repeat("echo "+strings.Repeat("{a,b}", 16)+";", 500)},
	{"a brace sequence of a hundred million", strings.Repeat("echo {1..99999999};", 2000)},
	{"a deep run of parentheses", strings.Repeat("(", 30000) + strings.Repeat(")", 30000)},
	{"deeply nested command substitutions", "echo " + strings.Repeat(`"$(echo `, 5000) + strings.Repeat(`)"`, 5000)},
	{"twenty thousand wrappers", strings.Repeat("sudo ", 20000) + "rm f"},
	{"twenty thousand env wrappers", strings.Repeat("env ", 20000) + "rm f"},
	{"ten thousand commands", strings.Repeat("echo x;", 15000)},
	{"ten thousand redirections", strings.Repeat("echo >f;", 12000)},
	{"long arithmetic", "echo $((" + strings.Repeat("x+", 30000) + "1))"},
	{"nested substitutions at the nesting bound", strings.Repeat("echo $(", 150) + strings.Repeat(")", 150)},
	{"an awk program of thousands of getline commands", "awk '" + strings.Repeat(`"x" | getline; `, 4000) + "'"},
	{"an awk program of thousands of regexes", "awk '" + strings.Repeat(`/[[:a:]]/ `, 6000) + "'"},
	{"a sed script of thousands of e commands", "sed '" + strings.Repeat("1e x\n", 10000) + "' f"},
	{"an awk program past the length the reader takes", "awk '" + strings.Repeat(`print > "f" `, 10000) + "'"},
	{"thousands of scripts run after thousands of writes", strings.Repeat("./x$RANDOM >f$RANDOM; ./y >g; tar -xf a -C d; ", 2000)},
	{"git aliases that run git aliases", "git " + strings.Repeat("-c alias.x='-c alias.x=log x' ", 2000) + "x"},
}

// TestBashAnalysisCostIsBounded checks, for every hostile input, the
// structural bounds that keep the analysis linear: the requests it produces
// are at most proportional to the command line, the directories relative
// paths resolve against stay bounded, and every input is answered (an
// error is an answer: the command is refused). The timings live in
// BenchmarkBashHostile.
func TestBashAnalysisCostIsBounded(t *testing.T) {
	t.Parallel()
	for _, c := range hostileCostInputs {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			an, err := analyzeBash(c.command, bashScope{Workdir: "/project", Worktree: "/project", InProject: inFakeProject})
			if err != nil {
				if !strings.Contains(err.Error(), "nest") {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if len(an.workdirs) > maxWorkdirs {
				t.Errorf("%d candidate directories, want at most %d", len(an.workdirs), maxWorkdirs)
			}
			total := 0
			for _, r := range an.Commands {
				total += len(r.Pattern) + len(r.Template)
			}
			for _, p := range an.Paths {
				total += len(p.Text) + len(p.Abs)
			}
			// Each unwrapped wrapper is a request of its own, showing the
			// rest of the command: at most maxWrapperDepth of them.
			if limit := (maxWrapperDepth+2)*len(c.command) + 4096; total > limit {
				t.Errorf("requests hold %d bytes for a %d-byte command line, want at most %d", total, len(c.command), limit)
			}
		})
	}
}

func TestBraceFieldsCountsWithoutExpanding(t *testing.T) {
	t.Parallel()
	cases := []struct {
		word string
		want int
	}{
		{"a", 1},
		{"{a,b}", 2},
		{"x{a,b}{c,d,e}", 6},
		{"{a,{b,c}}", 3},
		{"{1..10}", 10},
		{"{10..1}", 10},
		{"{1..10..3}", 4},
		{"{a..e}", 5},
		{"{1..99999999}", maxBraceFields + 1},
		{strings.Repeat("{a,b}", 40), maxBraceFields + 1},
		{"{-9223372036854775808..9223372036854775807}", maxBraceFields + 1},
	}
	for _, c := range cases {
		w := parseWord(t, c.word)
		if got := braceFields(w); got != c.want {
			t.Errorf("braceFields(%q) = %d, want %d", c.word, got, c.want)
		}
	}
}

// BenchmarkBashHostile measures the analysis of each hostile input.
func BenchmarkBashHostile(b *testing.B) {
	for _, c := range hostileCostInputs {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				_, _ = analyzeBash(c.command, bashScope{Workdir: "/project", Worktree: "/project", InProject: inFakeProject})
			}
		})
	}
}

func parseWord(t *testing.T, s string) *syntax.Word {
	t.Helper()
	w, err := syntax.NewParser(shellParser).Document(strings.NewReader(s))
	if err != nil {
		t.Fatalf("parse %q: %v", s, err)
	}
	return w
}
