// Package fspath resolves paths the way the file tools, the bash analysis
// and the bash sandbox must agree on: with every symlink followed, also for
// paths that do not exist yet (their longest existing prefix is resolved
// and the rest appended). One implementation, so that what a permission
// check decided about is what a tool then opens and what the kernel
// sandbox grants.
package fspath

import (
	"path/filepath"
	"strings"
)

// Real resolves the symlinks of p, or of its longest existing prefix when
// p does not exist yet; the rest is appended as written. p is cleaned
// first, as the file tools clean the paths they open.
func Real(p string) string {
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

// Within reports whether target is root or lies beneath it. Both are
// compared as given (resolve them with Real first where links matter); a
// relative result that climbs out ("..", "../x") or cannot be computed is
// outside.
func Within(root, target string) bool {
	if root == target {
		return true
	}
	rel, err := filepath.Rel(root, target)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
