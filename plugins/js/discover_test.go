package js

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFilesFindsToolhostAndOpenCodeFolders(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	mk := func(rel string) {
		p := filepath.Join(root, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, nil, 0o644)
	}
	for _, f := range []string{
		"home/opencode/tool/global.ts",
		"proj/.opencode/tool/a.ts", "proj/.opencode/tools/b.js", "proj/.opencode/tool/types.d.ts", "proj/.opencode/tool/notes.md",
		"proj/sub/.opencode/tool/deep.ts",
		"proj/.toolhost/tool/th.ts", "proj/.toolhost/tools/th2.js",
		"elsewhere/.opencode/tool/outside.ts",
	} {
		mk(f)
	}
	rel := func(ps []string) string {
		var out []string
		for _, p := range ps {
			r, _ := filepath.Rel(root, p)
			out = append(out, r)
		}
		return strings.Join(out, " ")
	}
	w := Where{ConfigDirs: []string{filepath.Join(root, "proj/.toolhost")}, OpenCode: true,
		Directory: filepath.Join(root, "proj/sub"), Worktree: filepath.Join(root, "proj"), ConfigHome: filepath.Join(root, "home")}
	tests := []struct {
		name string
		w    Where
		want string
	}{
		{"OpenCode's folders walking up, then toolhost's", w,
			"home/opencode/tool/global.ts proj/.opencode/tool/a.ts proj/.opencode/tools/b.js proj/sub/.opencode/tool/deep.ts proj/.toolhost/tool/th.ts proj/.toolhost/tools/th2.js"},
		{"compat opencode false reads toolhost's alone", func() Where { w := w; w.OpenCode = false; return w }(),
			"proj/.toolhost/tool/th.ts proj/.toolhost/tools/th2.js"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := rel(Files(tt.w)); got != tt.want {
				t.Fatalf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}
