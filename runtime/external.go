package runtime

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/toolhost/toolhost/runtime/permission"
)

// PermissionExternalDirectory is asked before a tool touches a path outside
// the project.
const PermissionExternalDirectory = "external_directory"

// ResolvePath makes p absolute against the call's working directory and
// expands a leading "~/".
func (c *Context) ResolvePath(p string) string {
	if strings.HasPrefix(p, "~/") || p == "~" {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, strings.TrimPrefix(p, "~"))
		}
	}
	if !filepath.IsAbs(p) {
		base := c.Directory
		if base == "" {
			base, _ = os.Getwd()
		}
		p = filepath.Join(base, p)
	}
	return filepath.Clean(p)
}

// Contains reports whether target lies inside the project (Worktree, or
// Directory when no worktree is known), after resolving symlinks of both
// (for a path that does not exist yet, of its nearest existing parent).
func (c *Context) Contains(target string) bool {
	root := c.Worktree
	if root == "" {
		root = c.Directory
	}
	if root == "" {
		return true
	}
	return within(realPath(root), realPath(target))
}

func within(root, target string) bool {
	rel, err := filepath.Rel(root, target)
	if err != nil {
		return false
	}
	return rel == "." || (rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)))
}

// realPath resolves symlinks of p, or of its longest existing prefix.
func realPath(p string) string {
	p = filepath.Clean(p)
	var rest []string
	for cur := p; ; {
		if r, err := filepath.EvalSymlinks(cur); err == nil {
			for i := len(rest) - 1; i >= 0; i-- {
				r = filepath.Join(r, rest[i])
			}
			return r
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return p
		}
		rest = append(rest, filepath.Base(cur))
		cur = parent
	}
}

// CheckExternalDirectory asks the external_directory permission when target
// lies outside the project. Every file tool calls it before touching a path.
// isDir says target is itself a directory; otherwise its parent directory
// is what the rule pattern names. Extra[ExtraBypassCwdCheck] skips it.
func (c *Context) CheckExternalDirectory(ctx context.Context, target string, isDir bool) error {
	if b, _ := c.Extra[ExtraBypassCwdCheck].(bool); b {
		return nil
	}
	if c.Contains(target) {
		return nil
	}
	dir := target
	if !isDir {
		dir = filepath.Dir(target)
	}
	glob := filepath.Join(dir, "*")
	return c.Ask(ctx, permission.Request{
		Permission: PermissionExternalDirectory,
		Patterns:   []string{glob},
		Always:     []string{glob},
		Metadata:   map[string]any{"filepath": target, "parentDir": dir},
	})
}
