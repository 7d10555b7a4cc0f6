package search

import (
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// MatchGlob matches a path filter the way ripgrep's --glob does: a
// pattern without a slash matches the file name at any depth ("*.go",
// "*.{ts,tsx}"); one with a slash matches the path relative to the search
// root ("src/**/*.ts"). rel and name are an Entry's RelPath and Name; the
// pattern must be valid (doublestar.ValidatePattern).
func MatchGlob(pattern, rel, name string) bool {
	if strings.Contains(pattern, "/") {
		return doublestar.MatchUnvalidated(pattern, rel)
	}
	return doublestar.MatchUnvalidated(pattern, name)
}
