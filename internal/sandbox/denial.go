package sandbox

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Refusal is a write a command reported refused, at a path the plan does
// not grant: most likely the sandbox's doing.
type Refusal struct {
	// Path is the path the message named.
	Path string
	// Dir is the directory to make writable to allow it: Path's parent,
	// or Path itself when it is an existing directory.
	Dir string
	// Protected says Path is toolhost's own state, never writable.
	Protected bool
}

// deniedMessage matches the messages a refused write produces: EACCES,
// EPERM and EROFS as strerror spells them, in any program's wording.
var deniedMessage = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)permission denied|operation not permitted|read-only file system`)
})

// pathToken finds absolute paths in a message, quoted or not; quotes,
// colons and punctuation end them, and "//" (a URL's) does not start one.
var pathToken = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile("(?:^|[\\s'\"`‘’“”(\\[:=])(/[^/\\s'\"`‘’“”:,;)\\]][^\\s'\"`‘’“”:,;)\\]]*)")
})

// Limits on what Refusals reads and returns: output is the model's and
// may be hostile or huge.
const (
	maxScanLines = 2000
	maxLineLen   = 4096
	maxRefusals  = 5
)

// Refusals finds writes the command reported refused at paths the plan does
// not let it write, so the caller can explain how to allow them. Only lines
// that carry a refusal message are read, and only absolute paths in them
// count (a relative path lies in the working directory, which is
// writable). protected are toolhost's own directories.
func Refusals(output string, plan Plan, protected []string) []Refusal {
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
			p := filepath.Clean(line[m[2]:m[3]])
			if p == "/" || seen[p] || plan.Allows(p) {
				continue
			}
			seen[p] = true
			r := Refusal{Path: p, Dir: filepath.Dir(p)}
			if isDir(p) {
				r.Dir = p
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
