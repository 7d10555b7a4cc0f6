package shellperm

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/toolhost/toolhost/internal/confine/fspath"
	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/permission"
)

// Requests returns the permission requests a bash command line running in
// workdir needs, in the order the bash tool asks them (external_directory,
// edit, bash), exactly as a call would: the bash tool asks them, and
// `toolhost permissions explain bash "<command>"` shows them. worktree is the project
// root; inProject reports whether a resolved absolute path is in the
// project (nil: inside worktree, symlinks resolved).
func Requests(command, workdir, worktree string, inProject func(string) bool) ([]permission.Request, error) {
	if inProject == nil {
		tc := &runtime.Context{Directory: workdir, Worktree: worktree}
		inProject = tc.Contains
	}
	an, err := analyzeBash(command, bashScope{Workdir: workdir, Worktree: worktree, InProject: inProject})
	if err != nil {
		return nil, err
	}
	return an.requests(bashScope{Workdir: workdir, Worktree: worktree, InProject: inProject}), nil
}

// requests turns the analysis into permission requests: one per permission,
// each with every pattern that permission must allow.
func (an *bashAnalysis) requests(scope bashScope) []permission.Request {
	ext := permission.Request{Permission: runtime.PermissionExternalDirectory}
	edit := permission.Request{Permission: PermissionEdit}
	bash := permission.Request{Permission: PermissionBash}
	// seen holds, per request, the patterns and "always" patterns it has,
	// so a long command line costs linear time.
	type key struct {
		r      *permission.Request
		always bool
		s      string
	}
	seen := map[key]bool{}
	addTo := func(r *permission.Request, pattern, template, always string) {
		if template != "" {
			if r.Unresolved == nil {
				r.Unresolved = map[string]string{}
			}
			// Two different templates shown alike become one Hole.
			if old, ok := r.Unresolved[pattern]; !ok {
				r.Unresolved[pattern] = template
			} else if old != template {
				r.Unresolved[pattern] = permission.Hole
			}
		}
		if k := (key{r, false, pattern}); !seen[k] {
			seen[k] = true
			r.Patterns = append(r.Patterns, pattern)
		}
		if k := (key{r, true, always}); always != "" && !seen[k] {
			seen[k] = true
			r.Always = append(r.Always, always)
		}
	}
	reasons := map[string]string{}
	var dirs []string
	seenDir := map[string]bool{}
	addDir := func(dir string) {
		if !seenDir[dir] {
			seenDir[dir] = true
			dirs = append(dirs, dir)
		}
		g := ExternalGlob(dir)
		addTo(&ext, g, "", g)
	}
	if !scope.InProject(scope.Workdir) {
		addDir(scope.Workdir)
	}
	for _, p := range an.Paths {
		if p.Abs == "" {
			addTo(&ext, p.Text, permission.Hole, "")
			if p.Write {
				addTo(&edit, p.Text, permission.Hole, "")
			}
			continue
		}
		if !scope.InProject(p.Abs) {
			dir := filepath.Dir(p.Abs)
			if st, err := os.Stat(p.Abs); p.IsDir || (err == nil && st.IsDir()) {
				dir = p.Abs
			}
			addDir(dir)
		}
		if p.Write {
			rel := editPattern(scope, p.Abs)
			addTo(&edit, rel, "", permission.Literal(rel))
		}
	}
	for _, c := range an.Commands {
		// cd changes only the shell's own directory; its target was
		// checked as a path, and every command it leads to has its own
		// pattern.
		if c.Template != permission.Hole && (c.Pattern == "cd" || strings.HasPrefix(c.Pattern, "cd ")) {
			continue
		}
		addTo(&bash, c.Pattern, c.Template, c.Always)
		if c.Reason != "" && reasons[c.Pattern] == "" {
			reasons[c.Pattern] = c.Reason
		}
	}
	if len(reasons) > 0 {
		// Why each pattern is asked, for `toolhost permissions explain`
		// and the front ends: the program that runs it, or why it is
		// unresolvable.
		bash.Metadata = map[string]any{"reasons": reasons}
	}
	var out []permission.Request
	for _, r := range []permission.Request{ext, edit, bash} {
		if len(r.Patterns) > 0 {
			if r.Permission == runtime.PermissionExternalDirectory {
				r.Metadata = map[string]any{"directories": dirs}
			}
			out = append(out, r)
		}
	}
	return out
}

// editPattern is the edit tool's pattern for a path: relative to the
// project root inside it, absolute outside.
func editPattern(scope bashScope, abs string) string {
	root := scope.Worktree
	if root == "" {
		root = scope.Workdir
	}
	if root != "" && scope.InProject(abs) {
		for _, r := range []string{resolveOnDisk(root), root} {
			if rel, err := filepath.Rel(r, abs); err == nil && fspath.Within(r, abs) {
				return filepath.ToSlash(rel)
			}
		}
	}
	return abs
}

// ExternalGlob is the rule pattern for everything in dir.
func ExternalGlob(dir string) string {
	return strings.TrimRight(dir, string(filepath.Separator)) + string(filepath.Separator) + "*"
}
