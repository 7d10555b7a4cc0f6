package sandbox

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Refusal is an access a command reported refused, at a path the plan
// does not grant: most likely the sandbox's doing.
type Refusal struct {
	// Path is the path the message named (made absolute).
	Path string
	// Dir is the directory to grant to allow it: Path's parent, or Path
	// itself when it is an existing directory.
	Dir string
	// Read says the plan does not let Path be read, so the refusal was
	// of a read (or of a write to a path neither readable nor writable).
	Read bool
	// Credential is the name to grant Path by when it lies in a hidden
	// credential location ("~/.ssh/id_ed25519"), else "".
	Credential string
	// Protected says Path is toolhost's own state, never writable.
	Protected bool
}

// deniedMessage matches the messages a refused write produces: EACCES,
// EPERM and EROFS as strerror spells them, in any program's wording.
var deniedMessage = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)permission denied|operation not permitted|read-only file system`)
})

// pathToken finds absolute paths, and relative ones that leave the
// working directory ("../x"), in a message, quoted or not; quotes, colons
// and punctuation end them, and "//" (a URL's) does not start one.
var pathToken = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile("(?:^|[\\s'\"`‘’“”(\\[:=])((?:/|\\.\\./)[^/\\s'\"`‘’“”:,;)\\]][^\\s'\"`‘’“”:,;)\\]]*)")
})

// Limits on what Refusals reads and returns: output is the model's and
// may be hostile or huge.
const (
	maxScanLines = 2000
	maxLineLen   = 4096
	maxRefusals  = 5
)

// Refusals finds accesses the command reported refused at paths the plan
// does not let it read or write, so the caller can explain how to allow
// them. Only lines that carry a refusal message are read, and only
// absolute paths in them, or relative ones leaving dir (the command's
// working directory: "../other/x"), count; a relative path inside dir
// lies in the project, which is readable and writable. protected are
// toolhost's own directories.
func Refusals(output string, plan Plan, dir string, protected []string) []Refusal {
	var out []Refusal
	seen := map[string]bool{}
	lines := strings.SplitN(output, "\n", maxScanLines+1)
	for _, line := range lines[:min(len(lines), maxScanLines)] {
		if len(line) > maxLineLen {
			line = line[:maxLineLen]
		}
		if !deniedMessage().MatchString(line) {
			continue
		}
		matches := pathToken().FindAllStringSubmatchIndex(line, -1)
		for i, m := range matches {
			// "/bin/bash: line 1: /x: Permission denied": the program that
			// reports, named by its path at the start of the line, is not
			// what was refused when another path follows.
			if i == 0 && len(matches) > 1 && m[2] == 0 && strings.HasPrefix(line[m[3]:], ":") {
				continue
			}
			p := line[m[2]:m[3]]
			if !filepath.IsAbs(p) {
				if dir == "" {
					continue
				}
				p = filepath.Join(dir, p)
			}
			p = filepath.Clean(p)
			if p == "/" || seen[p] {
				continue
			}
			read := !plan.AllowsRead(p)
			if !read && plan.Allows(p) {
				continue
			}
			seen[p] = true
			r := Refusal{Path: p, Dir: filepath.Dir(p), Read: read}
			if isDir(p) {
				r.Dir = p
			}
			if h, ok := plan.HiddenAt(p); ok {
				r.Credential = h.Grant
			}
			real := realPath(p)
			r.Protected = slices.ContainsFunc(protected, func(pr string) bool { return within(realPath(pr), real) })
			out = append(out, r)
			if len(out) == maxRefusals {
				return out
			}
		}
	}
	return out
}

// MayHoldRefusal reports whether output carries a refusal message at
// all: without one there is nothing for Refusals to find, and the plan
// need not be looked at.
func MayHoldRefusal(output string) bool { return deniedMessage().MatchString(output) }
