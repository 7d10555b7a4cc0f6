package fspath

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"sync"
)

// A hard link is a second name for the same file, and the permission rules
// are written for names: `ln .env docs/readme.md` gives the bytes of a
// file "*.env" denies a name "docs/**" allows, with no symbolic link on the
// way for Real to resolve. Nothing in the file says which of its names is
// the "real" one, so every name is judged: a file with more than one link
// is served (as a resource, an @file embed, a read) only when the rules
// allow every one of its names, and only when every one was found — a name
// outside the tree searched, or past where the search stopped, could be
// anything. Links finds the names; the caller applies its rules to each.

// MaxLinkSearch caps the directory entries one search for hard-linked
// files looks at, so a huge tree costs a bounded walk (21,000 entries took
// 0.04 to 0.1 s on a two-core machine under a load of 24); a name past it
// counts as not found. Only a file with more than one link starts a search.
const MaxLinkSearch = 100_000

// ErrHardLinked is the refusal of a hard-linked file: a name of it the
// rules keep back, or names that could not be found.
var ErrHardLinked = errors.New("the file has other names (hard links)")

// Links finds the names, inside one directory tree, of files with more than
// one link. The tree is walked once, when the first hard-linked file is
// asked about, and the answer serves every file asked about afterwards (a
// listing of many files costs one walk). Make one per request: the walk
// sees the tree as it was then. Safe for concurrent use.
type Links struct {
	root string
	max  int // entries looked at before the walk stops: MaxLinkSearch

	once  sync.Once
	names map[FileID][]string
	cut   bool // the walk stopped at MaxLinkSearch entries
}

// NewLinks searches root, which should be a resolved path (fspath.Real).
func NewLinks(root string) *Links { return &Links{root: root, max: MaxLinkSearch} }

// Names is what the search found of one file's names.
type Names struct {
	// Links is the file's link count: how many names it has.
	Links int
	// Found are the names found in the tree, slash-separated and relative
	// to its root, sorted. Empty for a file of one link (nothing is
	// searched: its one name is the path the caller has).
	Found []string
	// CutShort says the search stopped before it had looked everywhere.
	CutShort bool
}

// Complete reports whether every name of the file is known: it has one,
// or each of its links was found in the tree.
func (n Names) Complete() bool { return n.Links <= 1 || len(n.Found) >= n.Links }

// Names returns the names of the file info describes (a Stat of it, best of
// the file as opened, so what is judged is what is read). Directories and
// files of one link have one name, which is not searched for.
func (l *Links) Names(info fs.FileInfo) Names {
	n := LinkCount(info)
	if n <= 1 || info.IsDir() {
		return Names{Links: 1}
	}
	key, ok := IDOf(info)
	if !ok {
		return Names{Links: n}
	}
	l.once.Do(l.walk)
	return Names{Links: n, Found: l.names[key], CutShort: l.cut}
}

// walk indexes every regular file of more than one link in the tree, by
// device and inode: hidden files and directories included (the names most
// likely to be denied), symbolic links not followed (a link is not a name
// of the file, and Real judges it), other file systems not entered (no
// hard link crosses one). Each directory is opened through its parent's
// descriptor, never by a path (walkLinks), so one swapped for a link while
// the walk runs is not entered: every name found is a name in the tree.
func (l *Links) walk() {
	l.names = map[FileID][]string{}
	l.cut = walkLinks(l.root, l.max, func(rel string, id FileID) {
		l.names[id] = append(l.names[id], rel)
	})
	for k := range l.names {
		slices.Sort(l.names[k])
	}
}

// Check applies allowed to every name of a hard-linked file and says why
// it may not be served: a name the rules keep back refuses (named, so a person
// knows which rule decides), and so does a name not found. name is the
// file as the caller calls it, for the remedy. nil for a file of one link.
func (n Names) Check(name string, allowed func(rel string) bool) error {
	if n.Links <= 1 {
		return nil
	}
	for _, other := range n.Found {
		if !allowed(other) {
			return fmt.Errorf("%w: %s is also %s, which the read rules keep back; a file is served only when every name of it may be", ErrHardLinked, name, other)
		}
	}
	if !n.Complete() {
		where := "they lie outside the project"
		if n.CutShort {
			where = fmt.Sprintf("they lie outside the project, or past the %d entries searched", MaxLinkSearch)
		}
		return fmt.Errorf("%w: %s has %d names and %d of them were not found (%s), so the read rules cannot be checked for them; to serve it, make it a file of its own rather than a hard link (cp %s %s.copy && mv %s.copy %s)", ErrHardLinked, name, n.Links, n.Links-len(n.Found), where, name, name, name, name)
	}
	return nil
}
