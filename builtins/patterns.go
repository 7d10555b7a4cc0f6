package builtins

import (
	"cmp"
	"path/filepath"
	"strings"

	"github.com/toolhost/toolhost/runtime"
)

// filePatterns are the permission patterns of a file a tool reads or
// writes: the path as the model named it, relative to the project, and —
// when a symbolic link on the way leads elsewhere — the path the bytes
// really are at, relative to the project's own real path. A rule on the
// target (`"*.env": "ask"`, `"secrets/*": "deny"`) then cannot be got
// around by naming a link to it: every pattern of a request must be
// allowed. CheckExternalDirectory already judges a link that leads out of
// the project by its target; this covers links inside it.
func filePatterns(tc *runtime.Context, path string) []string {
	rel := displayPath(tc, path)
	real := tc.RealPath(path)
	if real == path || real == "" {
		return []string{rel}
	}
	root := cmp.Or(tc.Worktree, tc.Directory)
	realRel := real
	if root != "" {
		r, err := filepath.Rel(tc.RealPath(root), real)
		if err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) {
			realRel = filepath.ToSlash(r)
		}
	}
	if realRel == rel {
		return []string{rel}
	}
	return []string{rel, realRel}
}
