package permission

import (
	"os"
	"strings"
	"unicode/utf8"
)

// Match reports whether s matches the wildcard pattern. It is the matcher
// for both halves of a rule: permission names ("mcp_*") and patterns
// ("git *", "src/*.go").
//
//   - "*" matches any run of characters, "/" and newlines included; there is
//     no "**", because "*" already crosses directories.
//   - "?" matches exactly one character (one UTF-8 rune).
//   - Every other character is literal; there are no classes or escapes.
//   - A pattern ending in " *" also matches what precedes it alone, so
//     "ls *" matches "ls" as well as "ls -la".
//   - A leading "~" or "~/", "$HOME" or "$HOME/" stands for the home
//     directory (only at the start; elsewhere they are literal).
//
// These are OpenCode's Wildcard.match semantics. It does not allocate, and
// runs in O(len(pattern)·len(s)) at worst (a linear scan for the usual
// pattern with one or two stars), so it is called on every evaluation without
// a cache.
func Match(pattern, s string) bool {
	if home, rest, ok := homePrefix(pattern); ok {
		if !strings.HasPrefix(s, home) {
			return false
		}
		pattern, s = rest, s[len(home):]
	}
	// "ls *" is "ls" optionally followed by a space and anything, as in
	// OpenCode's rewrite of a trailing " .*" to "( .*)?".
	if prefix, ok := strings.CutSuffix(pattern, " *"); ok && match(prefix, s) {
		return true
	}
	return match(pattern, s)
}

// homePrefix splits a pattern starting with the home directory into the
// home directory and the rest of the pattern (which starts with "/" or is
// empty). The home directory is read from the environment on each call (it
// is a getenv, no syscall) so that it is never stale; it is matched
// literally even if it contains "*" or "?".
func homePrefix(pattern string) (home, rest string, ok bool) {
	switch {
	case pattern == "~" || strings.HasPrefix(pattern, "~/"):
		rest = pattern[1:]
	case pattern == "$HOME" || strings.HasPrefix(pattern, "$HOME/"):
		rest = pattern[len("$HOME"):]
	default:
		return "", "", false
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		// No home directory: leave the pattern literal rather than letting
		// "~/x" match "/x".
		return "", "", false
	}
	return home, rest, true
}

// match is the core glob matcher: a single pass that remembers the most
// recent "*" and, on a mismatch, lets that star swallow one more rune and
// retries from there. Only the latest star needs remembering: any match an
// earlier star could produce by swallowing more is also found by the later
// one (the classic argument behind path.Match-style matchers).
func match(pattern, s string) bool {
	px, sx := 0, 0
	// Restart point: pattern index just after the last star, and the index
	// in s the star will next extend to. starPx < 0 means no star seen.
	starPx, starSx := -1, 0
	for px < len(pattern) || sx < len(s) {
		if px < len(pattern) {
			switch c := pattern[px]; c {
			case '*':
				starPx, starSx = px+1, sx
				px++
				continue
			case '?':
				if sx < len(s) {
					_, w := utf8.DecodeRuneInString(s[sx:])
					px++
					sx += w
					continue
				}
			default:
				if sx < len(s) && s[sx] == c {
					px++
					sx++
					continue
				}
			}
		}
		// Mismatch: let the last star swallow one more rune, if any are left.
		if starPx >= 0 && starSx < len(s) {
			_, w := utf8.DecodeRuneInString(s[starSx:])
			starSx += w
			px, sx = starPx, starSx
			continue
		}
		return false
	}
	return true
}

// Literal returns the narrowest pattern that matches s: s itself, except
// that the characters Match treats specially cannot be escaped, so each
// "*" and "?" in s becomes "?" (one character), and a leading "~" or "$"
// that Match would read as the home directory ("~", "~/…", "$HOME",
// "$HOME/…") becomes "?" too. The result has no star, so it matches s and
// otherwise only strings of the same length that differ where s had one of
// those characters. Use it for the "always" pattern of a request about one
// file, so that answering "always" for `a*b` does not approve every name
// starting with "a", nor `~/x` a file in the home directory.
func Literal(s string) string {
	_, _, home := homePrefix(s)
	if !home && !strings.ContainsAny(s, "*?") {
		return s
	}
	b := []byte(s)
	for i, c := range b {
		if c == '*' || c == '?' {
			b[i] = '?'
		}
	}
	if home {
		b[0] = '?'
	}
	return string(b)
}

// Under returns the narrowest pattern that matches everything below the
// directory dir: Literal(dir) followed by "/*" (not dir itself, nor a
// sibling sharing its prefix). For the root "/" it is "/*".
func Under(dir string) string {
	return strings.TrimSuffix(Literal(dir), "/") + "/*"
}
