package builtins

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/runtime"
)

// Every tool that changes a file carries OpenCode's filediff: the file,
// its contents before and after, and the counts.
func TestFileChangingToolsCarryOpenCodesFilediff(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, tool string
		args       func(path string) any
		files      func(res runtime.Result) []map[string]any
		before     string
		after      string
		adds, dels int
	}{
		{"edit", "edit", func(p string) any {
			return map[string]any{"filePath": p, "oldString": "two", "newString": "TWO"}
		}, topFilediff, "one\ntwo\n", "one\nTWO\n", 1, 1},
		{"multiedit", "multiedit", func(p string) any {
			return map[string]any{"filePath": p, "edits": []map[string]any{{"oldString": "one", "newString": "1"}, {"oldString": "two", "newString": "2"}}}
		}, topFilediff, "one\ntwo\n", "1\n2\n", 2, 2},
		{"write over a file", "write", func(p string) any {
			return map[string]any{"filePath": p, "content": "one\ntwo\nthree\n"}
		}, topFilediff, "one\ntwo\n", "one\ntwo\nthree\n", 1, 0},
		{"apply_patch", "apply_patch", func(p string) any {
			return map[string]any{"patchText": "*** Begin Patch\n*** Update File: " + p + "\n@@\n one\n-two\n+zwei\n*** End Patch"}
		}, func(res runtime.Result) []map[string]any {
			var out []map[string]any
			for _, f := range res.Metadata["files"].([]map[string]any) {
				out = append(out, f["filediff"].(map[string]any))
			}
			return out
		}, "one\ntwo\n", "one\nzwei\n", 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			project := t.TempDir()
			path := filepath.Join(project, "f.txt")
			if err := os.WriteFile(path, []byte(tt.before), 0o644); err != nil {
				t.Fatal(err)
			}
			reg := linkRegistry(t, project, nil)
			reg.Add(runtime.SourceBuiltin, Edit(), MultiEdit(), Write(), ApplyPatch())
			if _, err := callTool(t, reg, "read", map[string]any{"filePath": path}); err != nil {
				t.Fatal(err)
			}
			res, err := callTool(t, reg, tt.tool, tt.args(path))
			if err != nil {
				t.Fatal(err)
			}
			fds := tt.files(res)
			if len(fds) != 1 {
				t.Fatalf("%d filediffs, want 1: %v", len(fds), res.Metadata)
			}
			fd := fds[0]
			if fd["file"] != path || fd["before"] != tt.before || fd["after"] != tt.after || fd["additions"] != tt.adds || fd["deletions"] != tt.dels {
				t.Errorf("filediff %v, want file %s, before %q, after %q, +%d -%d", fd, path, tt.before, tt.after, tt.adds, tt.dels)
			}
		})
	}
}

func topFilediff(res runtime.Result) []map[string]any {
	fd, _ := res.Metadata["filediff"].(map[string]any)
	if fd == nil {
		return nil
	}
	return []map[string]any{fd}
}

func TestFilediffLeavesOutHugeContents(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x\n", maxFileDiffContent)
	fd := fileDiffMeta("/p/f", big, big+"y\n", fileDiff{Additions: 1})
	if fd["before"] != "" || fd["after"] != "" || fd["truncated"] != true || fd["additions"] != 1 {
		t.Errorf("filediff of a huge file %v", fd)
	}
	fd = fileDiffMeta("/p/f", "a\n", "b\n", fileDiff{Additions: 1, Deletions: 1})
	if fd["before"] != "a\n" || fd["after"] != "b\n" || fd["truncated"] != nil {
		t.Errorf("filediff of a small file %v", fd)
	}
}
