// Package fspath resolves paths the way the file tools, the bash analysis
// and the bash sandbox must agree on: with every symlink followed, also for
// paths that do not exist yet (their longest existing prefix is resolved
// and the rest appended). One implementation, so that what a permission
// check decided about is what a tool then opens and what the kernel
// sandbox grants. It also opens what was checked (OpenRegular): a regular
// file only, without an open that could wait for ever. And it finds the
// other names of a hard-linked file (Links), which no resolving of symbolic
// links reveals, so that a file is judged by every name it has.
package fspath

import (
	"io/fs"
	"os"
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
	if _, inside, decided := below(root, target); decided {
		// What Rel would say, without cleaning both paths again: every
		// file tool checks a path or two this way on every call.
		return inside
	}
	rel, err := filepath.Rel(root, target)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// Rel is filepath.Rel(root, target), without cleaning both paths again
// when they are clean and absolute and target lies beneath root (what the
// file tools ask on every call); otherwise filepath.Rel answers.
func Rel(root, target string) (string, error) {
	if rel, inside, decided := below(root, target); decided && inside {
		return rel, nil
	}
	return filepath.Rel(root, target)
}

// below decides, for root and target both clean and absolute, whether
// target is root or lies beneath it, and the part of target below root
// ("." for root itself); decided is false for any other paths.
func below(root, target string) (rel string, inside, decided bool) {
	if !cleanAbs(root) || !cleanAbs(target) {
		return "", false, false
	}
	switch {
	case root == target:
		return ".", true, true
	case root == "/":
		return target[1:], true, true
	case len(target) > len(root) && target[len(root)] == '/' && target[:len(root)] == root:
		return target[len(root)+1:], true, true
	}
	return "", false, true
}

// cleanAbs reports whether p is absolute and as filepath.Clean leaves it,
// on systems whose paths are plain slash-separated (not Windows, whose
// volume names Clean also rewrites); false sends the caller the long way.
func cleanAbs(p string) bool {
	if filepath.Separator != '/' || len(p) == 0 || p[0] != '/' {
		return false
	}
	if p == "/" {
		return true
	}
	return p[len(p)-1] != '/' && !strings.Contains(p, "//") && !strings.Contains(p, "/./") && !strings.Contains(p, "/../") &&
		!strings.HasSuffix(p, "/.") && !strings.HasSuffix(p, "/..")
}

// RealBelow is Real(filepath.Join(base, rel)) for a base that is already
// real (no links in it), walking rel alone: one lstat per component of
// rel instead of one per component of the whole path. rel is relative
// and clean, without "..". ok is false when a component of rel is a link
// (or rel is not as described): the caller then calls Real, which knows
// every link.
func RealBelow(base, rel string) (real string, ok bool) {
	if rel == "." || rel == "" {
		return base, true
	}
	if filepath.IsAbs(rel) || filepath.Clean(rel) != rel || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	cur := base
	for rest := rel; rest != ""; {
		name, after, _ := strings.Cut(rest, string(filepath.Separator))
		next := filepath.Join(cur, name)
		info, err := os.Lstat(next)
		if err != nil {
			// Not there (or not reachable): like Real, the longest
			// existing prefix is resolved and the rest appended.
			return filepath.Join(cur, rest), true
		}
		if info.Mode()&fs.ModeSymlink != 0 {
			return "", false
		}
		cur, rest = next, after
	}
	return cur, true
}
