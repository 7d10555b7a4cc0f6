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

func TestGlobOutput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		files  map[string]string
		mtimes map[string]int
		params globParams
		want   []string // paths relative to the project, in output order
	}{
		{
			name:   "double star matches at any depth, newest first",
			files:  map[string]string{"a.go": "", "x/b.go": "", "x/y/c.go": "", "d.txt": ""},
			mtimes: map[string]int{"a.go": 1, "x/b.go": 3, "x/y/c.go": 2},
			params: globParams{Pattern: "**/*.go"},
			want:   []string{"x/b.go", "x/y/c.go", "a.go"},
		},
		{
			name:   "a pattern without a slash matches names at any depth",
			files:  map[string]string{"a.go": "", "x/b.go": "", "x/c.txt": ""},
			mtimes: map[string]int{"a.go": 2, "x/b.go": 1},
			params: globParams{Pattern: "*.go"},
			want:   []string{"a.go", "x/b.go"},
		},
		{
			name:   "a pattern with a slash is matched from the search directory",
			files:  map[string]string{"src/a.ts": "", "src/x/b.tsx": "", "lib/src/c.ts": ""},
			mtimes: map[string]int{"src/a.ts": 2, "src/x/b.tsx": 1},
			params: globParams{Pattern: "src/**/*.{ts,tsx}"},
			want:   []string{"src/a.ts", "src/x/b.tsx"},
		},
		{
			name:   "path selects the directory to search",
			files:  map[string]string{"a/x.go": "", "b/y.go": ""},
			params: globParams{Pattern: "*.go", Path: "b"},
			want:   []string{"b/y.go"},
		},
		{
			name:   "gitignored files and .git are skipped",
			files:  map[string]string{".gitignore": "gen/\n*.pb.go\n", "gen/a.go": "", "b.pb.go": "", "c.go": "", ".git/d.go": ""},
			params: globParams{Pattern: "**/*.go"},
			want:   []string{"c.go"},
		},
		{
			name:   "hidden files are found",
			files:  map[string]string{".env.example": "", "a/.eslintrc.json": ""},
			mtimes: map[string]int{".env.example": 2, "a/.eslintrc.json": 1},
			params: globParams{Pattern: ".*"},
			want:   []string{".env.example", "a/.eslintrc.json"},
		},
		{
			name:   "no match says so",
			files:  map[string]string{"a.go": ""},
			params: globParams{Pattern: "*.rs"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := fstree.Write(t, tt.files)
			for name, off := range tt.mtimes {
				setMtime(t, filepath.Join(root, name), off)
			}
			res, err := callSearchTool(t, Glob(), root, tt.params, nil)
			if err != nil {
				t.Fatal(err)
			}
			want := "No files found"
			if len(tt.want) > 0 {
				var abs []string
				for _, w := range tt.want {
					abs = append(abs, filepath.Join(root, w))
				}
				want = strings.Join(abs, "\n")
			}
			if res.Output != want {
				t.Errorf("output:\n%s\nwant:\n%s", res.Output, want)
			}
			if res.Metadata["count"] != len(tt.want) || res.Metadata["truncated"] != false {
				t.Errorf("metadata = %v", res.Metadata)
			}
		})
	}
}

func TestGlobAbsolutePatternSearchesItsOwnDirectory(t *testing.T) {
	t.Parallel()
	root := fstree.Write(t, map[string]string{"src/a.go": "", "b.go": ""})
	res, err := callSearchTool(t, Glob(), root, globParams{Pattern: filepath.Join(root, "src") + "/**/*.go"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(root, "src", "a.go"); res.Output != want {
		t.Errorf("output = %q, want %q", res.Output, want)
	}
}

func TestGlobShowsTheNewestHundredWithANote(t *testing.T) {
	t.Parallel()
	files := map[string]string{}
	for i := range 150 {
		files[fmt.Sprintf("d%d/f%03d.txt", i%7, i)] = ""
	}
	root := fstree.Write(t, files)
	for i := range 150 {
		setMtime(t, filepath.Join(root, fmt.Sprintf("d%d/f%03d.txt", i%7, i)), i)
	}
	res, err := callSearchTool(t, Glob(), root, globParams{Pattern: "**/*.txt"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(res.Output, "\n")
	if len(lines) != 102 {
		t.Fatalf("got %d lines, want 100 paths, a blank line and a note", len(lines))
	}
	for i, l := range lines[:100] {
		n := 149 - i
		if want := filepath.Join(root, fmt.Sprintf("d%d/f%03d.txt", n%7, n)); l != want {
			t.Fatalf("line %d = %s, want %s", i, l, want)
		}
	}
	if !strings.HasPrefix(lines[101], "(Results are truncated") || !strings.Contains(lines[101], "of 150 files") {
		t.Errorf("note = %q", lines[101])
	}
	if res.Metadata["truncated"] != true || res.Metadata["count"] != 100 {
		t.Errorf("metadata = %v", res.Metadata)
	}
}

func TestGlobErrorsAndPermissions(t *testing.T) {
	t.Parallel()
	root := fstree.Write(t, map[string]string{"a.go": ""})
	if _, err := callSearchTool(t, Glob(), root, globParams{Pattern: "[a-"}, nil); err == nil || !strings.Contains(err.Error(), "invalid glob pattern") {
		t.Errorf("bad pattern error = %v", err)
	}
	if _, err := callSearchTool(t, Glob(), root, globParams{Pattern: "*.go", Path: "missing"}, nil); err == nil || !strings.Contains(err.Error(), "is not a directory") {
		t.Errorf("missing path error = %v", err)
	}
	asks := &searchAsks{deny: "glob"}
	_, err := callSearchTool(t, Glob(), root, globParams{Pattern: "**/*.go"}, asks)
	var rejected *permission.RejectedError
	if !errors.As(err, &rejected) {
		t.Fatalf("err = %v, want the rejection unchanged", err)
	}
	if req := asks.find("glob"); req == nil || req.Patterns[0] != "**/*.go" {
		t.Errorf("glob request = %+v", req)
	}
	asks = &searchAsks{}
	if _, err := callSearchTool(t, Glob(), root, globParams{Pattern: "*", Path: t.TempDir()}, asks); err != nil {
		t.Fatal(err)
	}
	if asks.find("external_directory") == nil {
		t.Error("a path outside the project did not ask external_directory")
	}
}
