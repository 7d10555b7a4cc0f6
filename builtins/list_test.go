package builtins

import (
	"fmt"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/testkit/fstree"
)

func TestListOutput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		files  map[string]string
		params listParams
		want   string // after the root line
	}{
		{
			name:  "directories come first and files are indented by depth",
			files: map[string]string{"b.txt": "", "a.txt": "", "src/main.go": "", "src/util/u.go": "", "docs/x.md": ""},
			want:  "  docs/\n    x.md\n  src/\n    util/\n      u.go\n    main.go\n  a.txt\n  b.txt\n",
		},
		{
			name: "build and dependency folders are ignored by default",
			files: map[string]string{
				"node_modules/x/index.js": "", "dist/a.js": "", ".venv/bin/python": "", "target/x": "",
				"__pycache__/a.pyc": "", ".git/HEAD": "", "app.py": "",
			},
			want: "  app.py\n",
		},
		{
			name:   "ignore patterns leave out files and directories",
			files:  map[string]string{"a.log": "", "keep.go": "", "docs/x.md": "", "sub/b.log": ""},
			params: listParams{Ignore: []string{"*.log", "docs/"}},
			want:   "  keep.go\n",
		},
		{
			name:  "gitignored files are left out",
			files: map[string]string{".gitignore": "secret/\n", "secret/key": "", "main.go": ""},
			want:  "  .gitignore\n  main.go\n",
		},
		{
			name:   "path lists a subdirectory",
			files:  map[string]string{"a/x.txt": "", "b/y.txt": ""},
			params: listParams{Path: "a"},
			want:   "  x.txt\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := fstree.Write(t, tt.files)
			res, err := callSearchTool(t, List(), root, tt.params, nil)
			if err != nil {
				t.Fatal(err)
			}
			base := root
			if tt.params.Path != "" {
				base += "/" + tt.params.Path
			}
			if want := base + "/\n" + tt.want; res.Output != want {
				t.Errorf("output:\n%s\nwant:\n%s", res.Output, want)
			}
		})
	}
}

func TestListCapsAtOneHundredFilesShallowestFirst(t *testing.T) {
	t.Parallel()
	files := map[string]string{"top.txt": ""}
	for i := range 120 {
		files[fmt.Sprintf("deep/f%03d.txt", i)] = ""
	}
	root := fstree.Write(t, files)
	res, err := callSearchTool(t, List(), root, listParams{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Output, "\n  top.txt\n") {
		t.Error("the top-level file was cut in favour of deeper ones")
	}
	if got := strings.Count(res.Output, ".txt"); got != 100 {
		t.Errorf("listed %d files, want 100", got)
	}
	if !strings.HasSuffix(res.Output, "(Showing 100 of 121 files. Use a more specific path or the ignore parameter to see the rest.)\n") {
		t.Errorf("output lacks the cap note:\n...%s", res.Output[max(0, len(res.Output)-200):])
	}
	if res.Metadata["truncated"] != true || res.Metadata["count"] != 100 || res.Metadata["directories"] != 2 {
		t.Errorf("metadata = %v", res.Metadata)
	}
}

func TestListErrorsAndPermission(t *testing.T) {
	t.Parallel()
	root := fstree.Write(t, map[string]string{"a.txt": ""})
	if _, err := callSearchTool(t, List(), root, listParams{Path: "a.txt"}, nil); err == nil || !strings.Contains(err.Error(), "is not a directory") {
		t.Errorf("listing a file: error = %v", err)
	}
	if _, err := callSearchTool(t, List(), root, listParams{Ignore: []string{"[x"}}, nil); err == nil || !strings.Contains(err.Error(), "invalid ignore pattern") {
		t.Errorf("bad ignore pattern: error = %v", err)
	}
	asks := &searchAsks{}
	if _, err := callSearchTool(t, List(), root, listParams{}, asks); err != nil {
		t.Fatal(err)
	}
	if req := asks.find("list"); req == nil || req.Patterns[0] != root {
		t.Errorf("list request = %+v, want pattern %s", req, root)
	}
}
