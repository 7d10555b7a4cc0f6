package config

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// Error is one problem in one config source. Load returns every problem it
// finds joined with errors.Join; use errors.As to get the first one.
type Error struct {
	// Source is the file path, or the environment variable holding inline
	// config (TOOLHOST_CONFIG_CONTENT, TOOLHOST_PERMISSION).
	Source string
	// Line is 1-based; 0 when the problem has no single place.
	Line int
	// Key is the dotted key path ("tool_output.max_lines"), "" for the
	// document as a whole.
	Key string
	// Msg is the full message without the source and line.
	Msg string
}

// Error formats the problem as "source:line: message", the form editors and
// terminals turn into links.
func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.Source, e.Line, e.Msg)
	}
	return e.Source + ": " + e.Msg
}

// formatPath renders a key path for messages: object keys joined with dots,
// array indexes in brackets, and keys that would read ambiguously quoted
// (agent["my.agent"]).
func formatPath(path []string) string {
	var b strings.Builder
	for i, p := range path {
		switch {
		case strings.HasPrefix(p, "[") && strings.HasSuffix(p, "]"):
			b.WriteString(p)
		case plainKey().MatchString(p):
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(p)
		default:
			b.WriteString("[" + strconv.Quote(p) + "]")
		}
	}
	return b.String()
}

// plainKey matches keys that need no quoting inside a dotted path. It is
// generous with wildcards so "tools.mcp_*" and "permission.bash.*" read
// naturally; spaces, dots and quotes force the bracket form.
var plainKey = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_\-*?$/:]+$`) })

// suggest returns the candidate closest to s, or "" when none is close
// enough to be a likely typo.
func suggest(s string, candidates []string) string {
	best, bestD := "", -1
	ls := strings.ToLower(s)
	for _, c := range candidates {
		d := levenshtein(ls, strings.ToLower(c))
		if bestD < 0 || d < bestD || (d == bestD && c < best) {
			best, bestD = c, d
		}
	}
	if bestD < 0 || bestD > max(2, len(s)/3) {
		return ""
	}
	return best
}

// levenshtein is the edit distance between a and b, by bytes: keys are
// ASCII, and a hand-written 15 lines beat a dependency here.
func levenshtein(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Suggest returns the candidate closest to s, or "" when none is close
// enough to be a likely typo: the "did you mean" of config messages, for
// checks made after loading (a key naming a tool the host does not have).
func Suggest(s string, candidates []string) string { return suggest(s, candidates) }
