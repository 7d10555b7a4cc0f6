package fspath

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Resolve resolves the absolute path p the way the kernel does: element
// by element, following each symbolic link as it is met and applying ".."
// to the directory reached, so "link/.." is the link target's parent, not
// the link's. Elements that do not exist are appended as written. links
// are the symbolic links met on the way, each named by the directory it
// lies in (resolved) and its own name. A link that cannot be read, or one
// past max, ends the walk: resolved is then that link's path and the rest
// as written. The sandbox protects the links on the way to what it hides;
// the shell analysis judges the path a command would reach.
func Resolve(p string, max int) (resolved string, links []string) {
	rest := strings.Split(p, string(filepath.Separator))
	cur := string(filepath.Separator)
	for i := 0; i < len(rest); i++ {
		elem := rest[i]
		switch elem {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, elem)
		fi, err := os.Lstat(next)
		if err != nil {
			// Not there (yet): what is left is created as written.
			return filepath.Join(append([]string{cur}, rest[i:]...)...), links
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		links = append(links, next)
		target, err := os.Readlink(next)
		if err != nil || len(links) > max {
			return filepath.Join(append([]string{next}, rest[i+1:]...)...), links
		}
		if filepath.IsAbs(target) {
			cur = string(filepath.Separator)
		}
		rest = append(strings.Split(target, string(filepath.Separator)), rest[i+1:]...)
		i = -1
	}
	return cur, links
}
