package search

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp/syntax"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/testkit/fstree"
)

func TestGrepFindsLinesAcrossReadChunks(t *testing.T) {
	t.Parallel()
	// A file several read buffers long, with a line longer than one buffer:
	// line numbers must stay right across chunk boundaries.
	var b strings.Builder
	want := map[int]bool{}
	n := 0
	for b.Len() < 3*grepChunk {
		n++
		switch {
		case n == 7:
			b.WriteString(strings.Repeat("x", grepChunk+10) + " needle\n")
			want[n] = true
		case n%997 == 0:
			b.WriteString("a needle here\n")
			want[n] = true
		default:
			b.WriteString("some ordinary line of text\n")
		}
	}
	root := fstree.Write(t, map[string]string{"big.txt": b.String()})
	res := searchNeedle(t, root)
	if len(res.Files) != 1 || res.Files[0].Count != len(want) {
		t.Fatalf("found %+v, want %d matches", res.Total, len(want))
	}
	for _, l := range res.Files[0].Lines {
		if !want[l.Num] {
			t.Errorf("reported line %d, which does not match", l.Num)
		}
	}
}

func TestRequiredNeedles(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pattern string
		needles string // needles joined by "|", folded ones prefixed by "i:"
	}{
		{"needle", "needle"},
		{`func \w+\(`, "func "},
		{`\w+Error\b`, "Error"},
		{`(foo)+bar`, "foo"},
		{`TODO|FIXME`, "TODO|FIXME"},
		{`(?:foo|bar)\w*baz`, "baz"},
		{`(?:foo|bar)\w*z`, "foo|bar"},
		{`(?i)Unexpected EOF`, "i:unexpected eof"},
		{`(?i)mask`, "i:ma"},
		{`(?i)café au lait`, "i: au lait"},
		{`a|b`, ""},
		{`x*`, ""},
		{`[A-Z]\d+ ok`, " ok"},
	}
	for _, tt := range tests {
		m, err := Compile(tt.pattern)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, n := range m.needles {
			s := string(n.s)
			if n.fold {
				s = "i:" + s
			}
			got = append(got, s)
		}
		if strings.Join(got, "|") != tt.needles {
			t.Errorf("needles of %q = %q, want %q", tt.pattern, got, tt.needles)
		}
	}
}

func TestGrepNeedleSearchAgreesWithTheRegexp(t *testing.T) {
	t.Parallel()
	// Every line the regexp matches must be found through the needles.
	text := "Unexpected EOF here\nunexpected eof\nUNEXPECTED EOFs\nnothing\nTODO: x\n" +
		"a FIXME b\nthe mask\nMASK\nmaſk\nKelvin \u212Aey\nkey\nxx TODO\n"
	for _, pattern := range []string{`(?i)unexpected eof`, `TODO|FIXME`, `(?i)mask`, `(?i)key`, `(?i)\bT(?:odo|ODO)\b`, `(?:foo|MASK)$`} {
		m, err := Compile(pattern)
		if err != nil {
			t.Fatal(err)
		}
		var got []int
		m.searchBlock([]byte(text), 1, newLineDFA(m.prog), func(n int, _ []byte) { got = append(got, n) })
		var want []int
		for i, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
			if m.re.MatchString(line) {
				want = append(want, i+1)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%q matched lines %v, want %v", pattern, got, want)
		}
	}
}

func TestGrepRunPrefilterLosesNoLine(t *testing.T) {
	t.Parallel()
	text, err := os.ReadFile(filepath.Join("testdata", "grep_runs_text.txt"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(text), "\n"), "\n")
	used := 0
	for _, pattern := range corpusLines(t, filepath.Join("testdata", "grep_runs.txt")) {
		t.Run(pattern, func(t *testing.T) {
			m, err := Compile(pattern)
			if err != nil {
				t.Fatal(err)
			}
			if m.run != nil {
				used++
			}
			var got []int
			m.searchBlock(text, 1, newLineDFA(m.prog), func(n int, _ []byte) { got = append(got, n) })
			var want []int
			for i, line := range lines {
				if m.re.MatchString(line) {
					want = append(want, i+1)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("matched lines %v, want %v (run prefilter %+v)", got, want, m.run != nil)
			}
		})
	}
	if used < 5 {
		t.Errorf("the run prefilter served only %d corpus patterns: the corpus no longer tests it", used)
	}
}

func TestRequiredRun(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pattern string
		min     int    // 0: no prefilter
		in, out string // bytes in and not in the set
	}{
		{`[A-Z]{4,}[0-9]+`, 5, "AZ09", "az\n"},
		{`[A-Z]{4}`, 4, "AZ", "a0"},
		{`\w+`, 0, "", ""},                // too common to pay
		{`a|[A-Z]{5}`, 0, "", ""},         // an alternative is not required
		{`(?:[A-Z]{5})?[0-9]`, 0, "", ""}, // nor an optional group
		{`[^a-z]{6}`, 0, "", ""},          // most bytes pass
		{`[α-ω]{8}`, 8, "\xce\xb1", "a"},  // UTF-8: each rune one or more bytes ≥ 0x80
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			parsed, err := syntax.Parse(tt.pattern, syntax.Perl)
			if err != nil {
				t.Fatal(err)
			}
			r := requiredRun(parsed.Simplify())
			if tt.min == 0 {
				if r != nil {
					t.Errorf("run of %d chosen, want none", r.min)
				}
				return
			}
			if r == nil || r.min != tt.min {
				t.Fatalf("run %+v, want min %d", r, tt.min)
			}
			for _, b := range []byte(tt.in) {
				if !r.set[b] {
					t.Errorf("byte %q not in the set", b)
				}
			}
			for _, b := range []byte(tt.out) {
				if r.set[b] {
					t.Errorf("byte %q in the set", b)
				}
			}
		})
	}
}

// corpusLines reads a corpus file: one entry a line, blank lines and lines
// starting with # skipped.
func corpusLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
}

func FuzzIndexRareIsBytesIndex(f *testing.F) {
	for _, seed := range [][2]string{
		{"ErrUnexpectedEOF in io.ErrUnexpectedEOF", "ErrUnexpectedEOF"},
		{"aaaaaaaaab", "ab"},
		{"xFxFxF", "xF"},
		{"F at the start", "F at"},
		{"short", "longer than the buffer"},
		{"", "x"},
		{"abcabcabd", "abd"},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, buf, s string) {
		if got, want := indexRare([]byte(buf), []byte(s)), strings.Index(buf, s); got != want {
			t.Fatalf("indexRare(%q, %q) = %d, want %d", buf, s, got, want)
		}
	})
}

// Lines far longer than a read, at the start, middle and end of files,
// with the needle at either end of them, are found with the right line
// numbers; and so they are again by a second search, whose workers start
// with the buffers the first one grew (reads stay grepChunk long).
func TestGrepLongLinesWithGrownBuffers(t *testing.T) {
	t.Parallel()
	long := func(k float64, needleFirst bool) string {
		body := strings.Repeat("y", int(k*grepChunk))
		if needleFirst {
			return "needle" + body
		}
		return body + "needle"
	}
	files := map[string]string{
		"first.txt":  long(1.5, false) + "\nplain\nneedle\n",
		"middle.txt": "a\nneedle\n" + long(2.5, true) + "\nb\n" + long(0.9, false) + "\nneedle at the end",
		"last.txt":   strings.Repeat("filler line\n", 9000) + long(4.2, false),
		"none.txt":   strings.Repeat("z", 3*grepChunk+grepChunk/3) + "\nno match here\n",
		"short.txt":  "needle\n",
	}
	want := map[string][]int{}
	for name, content := range files {
		for i, line := range strings.Split(content, "\n") {
			if strings.Contains(line, "needle") {
				want[name] = append(want[name], i+1)
			}
		}
	}
	root := fstree.Write(t, files)
	for run := range 2 {
		res := searchNeedle(t, root)
		got := map[string][]int{}
		for _, f := range res.Files {
			for _, l := range f.Lines {
				got[filepath.Base(f.Path)] = append(got[filepath.Base(f.Path)], l.Num)
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("search %d: matching lines %v, want %v", run+1, got, want)
		}
	}
}

// searchNeedle searches root for "needle", keeping every matching line.
func searchNeedle(t *testing.T, root string) *Results {
	t.Helper()
	m, err := Compile("needle")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Grep(t.Context(), root, m, GrepOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// Read buffers go from one search to the next (grepBuffers), possibly of
// another project: a search sees only the bytes it read itself, never what
// an earlier one left in the buffer past them.
func TestGrepNeverSeesAnEarlierSearchsBytes(t *testing.T) {
	dir := fstree.Write(t, map[string]string{"short.txt": "a\n", "empty.txt": "", "line.txt": "no newline at the end"})
	m, err := Compile("secret")
	if err != nil {
		t.Fatal(err)
	}
	d, err := openWalkDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.close()
	for _, name := range []string{"short.txt", "empty.txt", "line.txt"} {
		// A buffer as an earlier search of another project left it.
		stale := []byte(strings.Repeat("the-secret line\n", 2*grepChunk/16))
		w := grepWorker{buf: stale}
		w.emit = w.emitLine
		w.searchFile(&Entry{dirAbs: dir, name: name, dir: d}, m)
		if len(w.files) != 0 {
			t.Fatalf("%s: found %+v, bytes an earlier search left in the buffer", name, w.files)
		}
	}
}

func TestGrepKeepsMaxLinesPerFileAndCountsThemAll(t *testing.T) {
	t.Parallel()
	root := fstree.Write(t, map[string]string{
		"many.txt": strings.Repeat("needle\nhay\n", 7),
		"few.txt":  "needle\n",
	})
	m, err := Compile("needle")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		maxLines int
		kept     map[string]int // file name → lines kept
	}{
		{"zero keeps every line", 0, map[string]int{"many.txt": 7, "few.txt": 1}},
		{"a bound keeps the first lines of each file", 3, map[string]int{"many.txt": 3, "few.txt": 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := Grep(t.Context(), root, m, GrepOptions{MaxLines: tt.maxLines})
			if err != nil {
				t.Fatal(err)
			}
			if res.Total != 8 {
				t.Errorf("total = %d, want 8: the count covers lines not kept", res.Total)
			}
			for _, f := range res.Files {
				name := filepath.Base(f.Path)
				if len(f.Lines) != tt.kept[name] {
					t.Errorf("%s: kept %d lines, want %d", name, len(f.Lines), tt.kept[name])
				}
				if len(f.Lines) > 0 && f.Lines[0].Num != 1 {
					t.Errorf("%s: first line kept is %d, want 1", name, f.Lines[0].Num)
				}
			}
		})
	}
}
