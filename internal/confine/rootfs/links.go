package rootfs

// Links: the hard and symbolic links a guest makes inside its mount. Both
// resolve inside the root; a symbolic link must also lead inside it.

import (
	"io/fs"
	"path"
	"slices"
	"strings"

	experimentalsys "github.com/tetratelabs/wazero/experimental/sys"
)

// Link implements experimentalsys.FS: both names resolve inside the root,
// so a hard link can only join two places in the mount.
func (f *FS) Link(oldPath, newPath string) experimentalsys.Errno {
	r, errno := f.writableRoot()
	if errno != 0 {
		return errno
	}
	if f.guarded() {
		on, errno := guardPath(name(oldPath))
		if errno != 0 {
			return errno
		}
		or, err := r.OpenRoot(path.Dir(on))
		if err != nil {
			return errnoOf(err)
		}
		defer or.Close()
		nr, nb, errno := f.guardParent(r, name(newPath))
		if errno != 0 {
			return errno
		}
		defer nr.Close()
		return linkAt(or, path.Base(on), nr, nb)
	}
	return errnoOf(r.Link(name(oldPath), name(newPath)))
}

// Symlink implements experimentalsys.FS. The target must be relative and
// lead, by its text, to a place inside the root from the link's
// directory; anything else is refused with EPERM. os.Root would refuse to
// follow such a link anyway, but a host tool outside the sandbox would
// not, so the mount never gets one. A target that climbs ("..") is judged
// from the real depth of the link's directory, so it is refused when a
// directory on the way to the link is itself a link (whose real depth the
// text does not tell).
func (f *FS) Symlink(target, link string) experimentalsys.Errno {
	r, errno := f.writableRoot()
	if errno != 0 {
		return errno
	}
	n := name(link)
	if !linkStaysInside(n, target) {
		return experimentalsys.EPERM
	}
	if slices.Contains(strings.Split(target, "/"), "..") {
		dir := ""
		for _, c := range strings.Split(path.Dir(n), "/") {
			if c == "." || c == "" {
				continue
			}
			dir = path.Join(dir, c)
			fi, err := r.Lstat(dir)
			if err != nil {
				return errnoOf(err)
			}
			if fi.Mode()&fs.ModeSymlink != 0 {
				return experimentalsys.EPERM
			}
		}
	}
	if f.guarded() {
		pr, base, errno := f.guardParent(r, n)
		if errno != 0 {
			return errno
		}
		defer pr.Close()
		return errnoOf(pr.Symlink(target, base))
	}
	return errnoOf(r.Symlink(target, n))
}

// linkStaysInside reports whether a link at linkPath (a clean path
// relative to a root) with the given target text stays inside the root by
// its text alone: the target is relative, has no NUL or backslash, and
// never climbs above the root from the link's directory. Other links
// inside the root may still lead elsewhere when followed; os.Root judges
// those when they are used.
func linkStaysInside(linkPath, target string) bool {
	if target == "" || path.IsAbs(target) || strings.ContainsAny(target, "\\\x00") || (len(target) > 1 && target[1] == ':') {
		return false
	}
	if linkPath == "." || strings.HasPrefix(linkPath, "../") || linkPath == ".." {
		return false
	}
	depth := 0
	for _, c := range strings.Split(path.Dir(path.Clean(linkPath)), "/") {
		if c != "." && c != "" {
			depth++
		}
	}
	for _, c := range strings.Split(target, "/") {
		switch c {
		case "", ".":
		case "..":
			if depth--; depth < 0 {
				return false
			}
		default:
			depth++
		}
	}
	return true
}
