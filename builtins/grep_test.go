package builtins

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/testkit/fstree"
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
			root := fstree.Write(t, tt.files)
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
	root := fstree.Write(t, files)
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
	root := fstree.Write(t, map[string]string{"a.txt": "needle"})
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
