package builtins

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp/syntax"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/runtime/permission"
)

func TestGrepOutput(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 2500) + " needle"
	tests := []struct {
		name    string
		files   map[string]string
		mtimes  map[string]int // seconds after a fixed base time
		params  grepParams
		want    string   // exact output; {root} is the project directory
		has     []string // substrings of the output, when want is empty
		hasNot  []string
		matches int
	}{
		{
			name:   "matches are grouped by file, newest file first",
			files:  map[string]string{"old.go": "x\nneedle one\n", "new.go": "needle two\nx\nneedle three"},
			mtimes: map[string]int{"old.go": 1, "new.go": 2},
			params: grepParams{Pattern: "needle"},
			want: "Found 3 matches\n{root}/new.go:\n  Line 1: needle two\n  Line 3: needle three\n\n" +
				"{root}/old.go:\n  Line 2: needle one",
			matches: 3,
		},
		{
			name:    "nothing found says so",
			files:   map[string]string{"a.txt": "hay"},
			params:  grepParams{Pattern: "needle"},
			want:    "No files found",
			matches: 0,
		},
		{
			name:    "a regular expression is matched line by line",
			files:   map[string]string{"a.go": "func (s *Server) Close() error {\nfunc Close() {}\n"},
			params:  grepParams{Pattern: `func \(\w+ \*\w+\) Close\(\)`},
			has:     []string{"Line 1: func (s *Server) Close() error {"},
			hasNot:  []string{"Line 2"},
			matches: 1,
		},
		{
			name:    "anchors apply to each line",
			files:   map[string]string{"a.txt": "xfoo\nfoo bar\nbar foo"},
			params:  grepParams{Pattern: `^foo`},
			has:     []string{"Line 2: foo bar"},
			matches: 1,
		},
		{
			name:    "a pattern without a required literal still works",
			files:   map[string]string{"a.txt": "abc\nABC123\n\nx9"},
			params:  grepParams{Pattern: `[A-Z]+\d+|^x\d$`},
			has:     []string{"Line 2: ABC123", "Line 4: x9"},
			matches: 2,
		},
		{
			name:    "case-insensitive flags are honoured",
			files:   map[string]string{"a.txt": "Needle\nneedle\nNEEDLE\nnope"},
			params:  grepParams{Pattern: `(?i)needle`},
			matches: 3,
		},
		{
			name:    "include filters file names at any depth with braces",
			files:   map[string]string{"a.ts": "needle", "sub/b.tsx": "needle", "c.js": "needle"},
			params:  grepParams{Pattern: "needle", Include: "*.{ts,tsx}"},
			has:     []string{"a.ts:", "sub/b.tsx:"},
			hasNot:  []string{"c.js"},
			matches: 2,
		},
		{
			name:    "binary files are skipped",
			files:   map[string]string{"bin.dat": "needle\x00\x01\x02", "text.txt": "needle"},
			params:  grepParams{Pattern: "needle"},
			has:     []string{"text.txt:"},
			hasNot:  []string{"bin.dat"},
			matches: 1,
		},
		{
			name: "binary content is told by the first 8 KB, whatever the file's size and where it matches",
			files: map[string]string{
				"small-bin.dat":  "needle first\nthen\x00binary",
				"big-bin.dat":    "\x00" + strings.Repeat("filler line\n", 30000) + "needle at the end\n",
				"late-nul.txt":   strings.Repeat("text line\n", 1000) + "\x00 past the probe\nneedle\n",
				"big-text.txt":   strings.Repeat("filler line\n", 30000) + "needle at the end\n",
				"small-text.txt": "needle",
			},
			params:  grepParams{Pattern: "needle"},
			has:     []string{"late-nul.txt:", "big-text.txt:", "small-text.txt:"},
			hasNot:  []string{"small-bin.dat", "big-bin.dat"},
			matches: 3,
		},
		{
			name:    "gitignored files and .git are not searched",
			files:   map[string]string{".gitignore": "gen/\n", "gen/a.go": "needle", ".git/config": "needle", "b.go": "needle"},
			params:  grepParams{Pattern: "needle"},
			has:     []string{"b.go:"},
			hasNot:  []string{"gen/a.go", "/.git/"},
			matches: 1,
		},
		{
			name:    "lines longer than 2000 characters are cut",
			files:   map[string]string{"a.txt": long},
			params:  grepParams{Pattern: "é"},
			has:     []string{"Line 1: " + strings.Repeat("é", 2000) + "..."},
			hasNot:  []string{"needle"},
			matches: 1,
		},
		{
			name:    "CRLF line endings are not shown",
			files:   map[string]string{"a.txt": "one needle\r\ntwo\r\n"},
			params:  grepParams{Pattern: "needle"},
			want:    "Found 1 matches\n{root}/a.txt:\n  Line 1: one needle",
			matches: 1,
		},
		{
			name:    "path narrows the search to a subdirectory",
			files:   map[string]string{"a/x.txt": "needle", "b/y.txt": "needle"},
			params:  grepParams{Pattern: "needle", Path: "a"},
			has:     []string{"a/x.txt:"},
			hasNot:  []string{"b/y.txt"},
			matches: 1,
		},
		{
			name:    "path may name a single file",
			files:   map[string]string{"a/x.txt": "needle\nneedle", "b/y.txt": "needle"},
			params:  grepParams{Pattern: "needle", Path: "a/x.txt"},
			has:     []string{"Line 2: needle"},
			matches: 2,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := searchTree(t, tt.files)
			for name, off := range tt.mtimes {
				setMtime(t, filepath.Join(root, name), off)
			}
			res, err := callSearchTool(t, Grep(), root, tt.params, nil)
			if err != nil {
				t.Fatal(err)
			}
			if tt.want != "" {
				if want := strings.ReplaceAll(tt.want, "{root}", root); res.Output != want {
					t.Errorf("output:\n%s\nwant:\n%s", res.Output, want)
				}
			}
			for _, s := range tt.has {
				if !strings.Contains(res.Output, s) {
					t.Errorf("output lacks %q:\n%.500s", s, res.Output)
				}
			}
			for _, s := range tt.hasNot {
				if strings.Contains(res.Output, s) {
					t.Errorf("output has %q:\n%.500s", s, res.Output)
				}
			}
			if res.Metadata["matches"] != tt.matches {
				t.Errorf("matches = %v, want %d", res.Metadata["matches"], tt.matches)
			}
		})
	}
}

func TestGrepCapsAtOneHundredMatchesFromTheNewestFiles(t *testing.T) {
	t.Parallel()
	// 30 files of 10 matches each: only the newest 10 files can be shown.
	files := map[string]string{}
	for i := range 30 {
		files[fmt.Sprintf("f%02d.txt", i)] = strings.Repeat("needle\n", 10)
	}
	root := searchTree(t, files)
	for i := range 30 {
		setMtime(t, filepath.Join(root, fmt.Sprintf("f%02d.txt", i)), i)
	}
	res, err := callSearchTool(t, Grep(), root, grepParams{Pattern: "needle"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := res.Output
	if !strings.HasPrefix(out, "Found 300 matches (showing first 100)\n"+root+"/f29.txt:") {
		t.Errorf("output should start with the count and the newest file:\n%.300s", out)
	}
	if got := strings.Count(out, "  Line "); got != 100 {
		t.Errorf("shown %d lines, want 100", got)
	}
	for i := range 30 {
		shown := strings.Contains(out, fmt.Sprintf("f%02d.txt:", i))
		if shown != (i >= 20) {
			t.Errorf("file f%02d shown = %v, want %v", i, shown, i >= 20)
		}
	}
	if !strings.HasSuffix(out, "(Results truncated: showing 100 of 300 matches (200 hidden). Consider using a more specific path or pattern.)") {
		t.Errorf("output lacks the truncation note:\n...%s", out[max(0, len(out)-300):])
	}
	if res.Metadata["truncated"] != true || res.Metadata["uniqueFiles"] != 30 {
		t.Errorf("metadata = %v", res.Metadata)
	}
}

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
	root := searchTree(t, map[string]string{"big.txt": b.String()})
	res := searchNeedle(t, root)
	if len(res.files) != 1 || res.files[0].count != len(want) {
		t.Fatalf("found %+v, want %d matches", res.total, len(want))
	}
	for _, l := range res.files[0].lines {
		if !want[l.num] {
			t.Errorf("reported line %d, which does not match", l.num)
		}
	}
}

func TestGrepErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		params grepParams
		want   []string
	}{
		{"an invalid pattern names the regex problem", grepParams{Pattern: "func(("}, []string{`invalid regular expression "func(("`, "missing closing )"}},
		{"lookaround is explained as unsupported", grepParams{Pattern: "a(?=b)"}, []string{"invalid or unsupported Perl syntax", "RE2"}},
		{"an empty pattern is refused", grepParams{}, []string{"pattern is required"}},
		{"a bad include pattern is refused", grepParams{Pattern: "x", Include: "*.{ts"}, []string{"invalid include pattern"}},
		{"a missing path is named", grepParams{Pattern: "x", Path: "nope"}, []string{"does not exist"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := callSearchTool(t, Grep(), t.TempDir(), tt.params, nil)
			if err == nil {
				t.Fatal("no error")
			}
			for _, s := range tt.want {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q lacks %q", err, s)
				}
			}
		})
	}
}

func TestGrepAsksPermission(t *testing.T) {
	t.Parallel()
	root := searchTree(t, map[string]string{"a.txt": "needle"})
	asks := &searchAsks{deny: "grep"}
	_, err := callSearchTool(t, Grep(), root, grepParams{Pattern: "ne+dle"}, asks)
	var rejected *permission.RejectedError
	if !errors.As(err, &rejected) {
		t.Fatalf("err = %v, want the rejection unchanged", err)
	}
	req := asks.find("grep")
	if req == nil || len(req.Patterns) != 1 || req.Patterns[0] != "ne+dle" {
		t.Errorf("grep request = %+v, want pattern ne+dle", req)
	}
	outside := t.TempDir()
	asks = &searchAsks{}
	if _, err := callSearchTool(t, Grep(), root, grepParams{Pattern: "x", Path: outside}, asks); err != nil {
		t.Fatal(err)
	}
	if asks.find("external_directory") == nil {
		t.Error("searching outside the project did not ask external_directory")
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
		m, err := compileMatcher(tt.pattern)
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
		m, err := compileMatcher(pattern)
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
			m, err := compileMatcher(pattern)
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
	root := searchTree(t, files)
	for run := range 2 {
		res := searchNeedle(t, root)
		got := map[string][]int{}
		for _, f := range res.files {
			for _, l := range f.lines {
				got[filepath.Base(f.path)] = append(got[filepath.Base(f.path)], l.num)
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("search %d: matching lines %v, want %v", run+1, got, want)
		}
	}
}

// searchNeedle searches root for "needle" as the grep tool does, before its
// display cap.
func searchNeedle(t *testing.T, root string) *grepResults {
	t.Helper()
	m, err := compileMatcher("needle")
	if err != nil {
		t.Fatal(err)
	}
	res, err := grepTree(t.Context(), root, m, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// Read buffers go from one search to the next (grepBuffers), possibly of
// another project: a search sees only the bytes it read itself, never what
// an earlier one left in the buffer past them.
func TestGrepNeverSeesAnEarlierSearchsBytes(t *testing.T) {
	dir := searchTree(t, map[string]string{"short.txt": "a\n", "empty.txt": "", "line.txt": "no newline at the end"})
	m, err := compileMatcher("secret")
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
		w.searchFile(&walkEntry{dirAbs: dir, name: name, dir: d}, m)
		if len(w.files) != 0 {
			t.Fatalf("%s: found %+v, bytes an earlier search left in the buffer", name, w.files)
		}
	}
}
