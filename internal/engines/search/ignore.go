package search

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// This file is the ignore-file matcher the walk consults in every
// directory (walk.go says which files it reads and their precedence).
//
// The .gitignore matcher is written here rather than taken from
// sabhiram/go-gitignore because that library compiles each file to regular
// expressions that ignore several of git's rules (patterns relative to the
// file's directory, "foo/" matching only directories, a middle slash
// anchoring the pattern, the last matching line winning across nested
// files). The wildcard semantics themselves (*, ?, [...], **) are git's
// fnmatch rules, which doublestar implements; only brace expansion, which
// git does not have, is escaped away.

// ignoreRule is one line of an ignore file.
type ignoreRule struct {
	pattern  string // doublestar pattern, relative to the file's directory when anchored
	negate   bool   // "!pattern" re-includes
	dirOnly  bool   // "pattern/" matches directories only
	anchored bool   // a slash at the start or in the middle: match the path, not the name
}

// The kinds of ignore file, in ripgrep's order of precedence: a match in an
// earlier kind, at any depth, decides before a later kind is looked at.
const (
	kindIgnore    = iota // .ignore
	kindGitignore        // .gitignore
	kindExclude          // .git/info/exclude, relative to the repository's top
	ignoreKinds
)

// ignoreFiles are the file names of the kinds read in every directory.
var ignoreFiles = [...]string{kindIgnore: ".ignore", kindGitignore: ".gitignore"}

// ignoreNode is the rules of one directory's ignore files, chained to the
// rules of the directories above it.
type ignoreNode struct {
	parent *ignoreNode
	base   string // the directory, with a trailing separator
	rules  [ignoreKinds][]ignoreRule
}

// ignored reports whether the entry at abs is excluded: for each kind in
// order of precedence, the last matching rule of the deepest file of that
// kind that has one decides.
func (n *ignoreNode) ignored(abs string, isDir bool) bool {
	for kind := range ignoreKinds {
		if ignored, ok := n.match(kind, abs, isDir); ok {
			return ignored
		}
	}
	return false
}

func (n *ignoreNode) match(kind int, abs string, isDir bool) (ignored, ok bool) {
	for ; n != nil; n = n.parent {
		rules := n.rules[kind]
		if len(rules) == 0 || !strings.HasPrefix(abs, n.base) {
			continue
		}
		rel := filepath.ToSlash(abs[len(n.base):])
		name := rel[strings.LastIndexByte(rel, '/')+1:]
		for i := len(rules) - 1; i >= 0; i-- {
			r := &rules[i]
			if r.dirOnly && !isDir {
				continue
			}
			subject := name
			if r.anchored {
				subject = rel
			}
			if doublestar.MatchUnvalidated(r.pattern, subject) {
				return !r.negate, true
			}
		}
	}
	return false, false
}

// dirIgnores returns parent with the rules of the directory abs (really at
// real) added: its .ignore and .gitignore, and its .git/info/exclude when
// it is the top of a repository. entries are the directory's entries.
func dirIgnores(parent *ignoreNode, abs, real string, entries []dirEntry) *ignoreNode {
	var node ignoreNode
	hasRules := false
	for _, e := range entries {
		name := e.name
		for kind, file := range ignoreFiles {
			if name == file && e.typ.IsRegular() {
				node.rules[kind] = readIgnoreFile(filepath.Join(real, name))
				hasRules = hasRules || len(node.rules[kind]) > 0
			}
		}
		if name == ".git" && e.typ.IsDir() {
			node.rules[kindExclude] = readIgnoreFile(filepath.Join(real, ".git", "info", "exclude"))
			hasRules = hasRules || len(node.rules[kindExclude]) > 0
		}
	}
	if !hasRules {
		return parent
	}
	// A copy on the heap only now: most directories have no ignore file.
	found := node
	found.parent, found.base = parent, withSeparator(abs)
	return &found
}

func withSeparator(dir string) string {
	if strings.HasSuffix(dir, string(filepath.Separator)) {
		return dir
	}
	return dir + string(filepath.Separator)
}

// readIgnoreFile parses a .gitignore; an unreadable file has no rules.
//
// As git does (since 2.32), an ignore file that is a link is not followed;
// nor is anything but a regular file read, opened without blocking (a
// FIFO swapped in would wait for a writer for ever), and only its first
// maxIgnoreFile bytes count.
func readIgnoreFile(path string) []ignoreRule {
	f, err := os.OpenFile(path, ignoreOpenFlags, 0)
	if err != nil {
		return nil
	}
	defer f.Close()
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
		return nil
	}
	data, err := io.ReadAll(io.LimitReader(f, maxIgnoreFile))
	if err != nil {
		return nil
	}
	return parseIgnore(data)
}

// maxIgnoreFile is how much of an ignore file is read.
const maxIgnoreFile = 4 << 20

// parseIgnore parses .gitignore content following gitignore(5).
func parseIgnore(data []byte) []ignoreRule {
	var rules []ignoreRule
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		if r, ok := parseIgnoreLine(sc.Text()); ok {
			rules = append(rules, r)
		}
	}
	return rules
}

func parseIgnoreLine(line string) (ignoreRule, bool) {
	var r ignoreRule
	line = strings.TrimSuffix(line, "\r")
	// Trailing spaces are ignored unless escaped with a backslash.
	for strings.HasSuffix(line, " ") && !strings.HasSuffix(line, "\\ ") {
		line = line[:len(line)-1]
	}
	if line == "" || line[0] == '#' {
		return r, false
	}
	switch {
	case line[0] == '!':
		r.negate = true
		line = line[1:]
	case strings.HasPrefix(line, `\!`), strings.HasPrefix(line, `\#`):
		line = line[1:]
	}
	if strings.HasSuffix(line, "/") {
		r.dirOnly = true
		line = strings.TrimRight(line, "/")
	}
	if line == "" {
		return r, false
	}
	if strings.Contains(line, "/") {
		r.anchored = true
		line = strings.TrimPrefix(line, "/")
	}
	// git has no brace expansion; make doublestar treat braces literally.
	line = strings.NewReplacer("{", `\{`, "}", `\}`).Replace(line)
	if !doublestar.ValidatePattern(line) {
		return r, false
	}
	r.pattern = line
	return r, true
}

// ancestorIgnores loads the ignore files of root's ancestors, outermost
// first, so searching a subdirectory honours the rules written above it:
// .ignore files in every ancestor (ripgrep reads them with or without
// git), and — inside a git repository that root is not the top of — the
// .gitignore files from the repository's top down to root's parent and
// the repository's .git/info/exclude. Outside a repository git would read
// no .gitignore, so neither does the walk.
func ancestorIgnores(root string) *ignoreNode {
	var dirs []string
	top := -1 // index in dirs of the repository's top
	_, rootErr := os.Lstat(filepath.Join(root, ".git"))
	for dir := filepath.Dir(root); ; dir = filepath.Dir(dir) {
		dirs = append(dirs, dir)
		if top < 0 && rootErr != nil {
			if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
				top = len(dirs) - 1
			}
		}
		if filepath.Dir(dir) == dir {
			break
		}
	}
	var node *ignoreNode
	for i := len(dirs) - 1; i >= 0; i-- {
		var n ignoreNode
		n.rules[kindIgnore] = readIgnoreFile(filepath.Join(dirs[i], ".ignore"))
		if top >= 0 && i <= top {
			n.rules[kindGitignore] = readIgnoreFile(filepath.Join(dirs[i], ".gitignore"))
		}
		if i == top {
			n.rules[kindExclude] = readIgnoreFile(filepath.Join(dirs[i], ".git", "info", "exclude"))
		}
		if len(n.rules[kindIgnore])+len(n.rules[kindGitignore])+len(n.rules[kindExclude]) > 0 {
			n.parent, n.base = node, withSeparator(dirs[i])
			node = &n
		}
	}
	return node
}
