package builtins

import (
	"cmp"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/toolhost/toolhost/internal/confine/fspath"
	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/permission"
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
	return filePatternsReal(tc, path, tc.RealPath(path))
}

// filePatternsReal is filePatterns for a caller that has resolved path
// already: real is path with every link followed.
func filePatternsReal(tc *runtime.Context, path, real string) []string {
	rel := displayPath(tc, path)
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

// maxLinkPatterns caps the other names of a hard-linked file a request
// names one by one.
const maxLinkPatterns = 32

// hardLinkPatterns adds to patterns (filePatterns' of path) the other
// names of the file info describes when it has hard links: every name
// found in the project, relative to it, so `docs/readme.md` that is also
// `.env` is decided by "*.env" too; and, when some names were not found
// (they lie outside the project, or past where the search stopped), one
// pattern standing for any name (permission.Hole, in unresolved), which
// only a rule allowing every path allows while any rule that could deny or
// ask one still does. Files of one link come back as they are. links
// searches the project (projectLinks); nil makes one for this file alone.
func hardLinkPatterns(tc *runtime.Context, path string, info fs.FileInfo, patterns []string, links *fspath.Links) (_ []string, unresolved map[string]string) {
	if info == nil || !info.Mode().IsRegular() || fspath.LinkCount(info) <= 1 {
		return patterns, nil
	}
	if links == nil {
		links = projectLinks(tc)
	}
	names := fspath.Names{Links: fspath.LinkCount(info)}
	if links != nil {
		names = links.Names(info)
	}
	found := names.Found
	if len(found) > maxLinkPatterns {
		// A question of thousands of names helps nobody: the rest are
		// decided as names not found.
		found = found[:maxLinkPatterns]
	}
	for _, name := range found {
		if !slices.Contains(patterns, name) {
			patterns = append(patterns, name)
		}
	}
	if len(found) >= names.Links {
		return patterns, nil
	}
	missing := names.Links - len(found)
	where := "outside the project"
	if names.CutShort {
		where = "not found in the project"
	}
	key := fmt.Sprintf("(%d other %s of %s, hard %s %s)", missing, plural(missing, "name", "names"), displayPath(tc, path), plural(missing, "link", "links"), where)
	return append(patterns, key), map[string]string{key: permission.Hole}
}

// projectLinks searches the call's project for the names of hard-linked
// files; nil when there is no project.
func projectLinks(tc *runtime.Context) *fspath.Links {
	root := projectDir(tc)
	if root == "" {
		return nil
	}
	return fspath.NewLinks(tc.RealPath(root))
}
