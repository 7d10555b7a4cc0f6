package permission

import (
	"strings"
	"unicode/utf8"
)

// Hole stands, inside a template pattern (Request.Unresolved), for text that
// is only known when the command runs: a shell variable's value, a command
// substitution's output, an arithmetic result. A hole may be empty or hold
// any characters, spaces and "/" included. NUL cannot occur in a command
// line or a path, so it cannot be forged by the text around it.
const Hole = "\x00"

// A template is a pattern with holes. Deciding it asks two questions of
// every rule: does the rule match whatever fills the holes (must), and could
// it match for some filling (may)? The decision is last-match-wins over the
// possible outcomes: a rule that must match replaces every outcome so far,
// a rule that may match adds its action as one more possibility, and the
// strictest possibility decides (deny over ask over allow). So only a rule
// that matches every possible value can allow a template — for a template
// that is one hole, only a pattern of stars, "*" — while any deny or ask
// that might apply still does. This is what "fail closed" means for text a
// parser cannot know: an allow list never lets through what it cannot see,
// and a deny list still stops what it might be.

// EvaluateTemplate decides a template pattern (one containing Hole) against
// sets, as described above. The returned rule is the deciding one: the rule
// that contributed the strictest possible outcome, or the synthetic
// NoRuleSource ask when no rule could have matched. matched lists every rule
// that must or may match, in order.
func EvaluateTemplate(permission, template string, sets ...Ruleset) (decision Rule, matched Ruleset) {
	if !strings.Contains(template, Hole) {
		return Evaluate(permission, template, sets...)
	}
	noRule := Rule{Permission: permission, Pattern: "*", Action: Ask, Source: NoRuleSource}
	// possible holds the outcomes still possible, each with its rule.
	possible := []Rule{noRule}
	for _, set := range sets {
		for _, r := range set {
			if !Match(r.Permission, permission) {
				continue
			}
			switch {
			case MustMatch(r.Pattern, template):
				possible = append(possible[:0], r)
				matched = append(matched, r)
			case MayMatch(r.Pattern, template):
				possible = append(possible, r)
				matched = append(matched, r)
			}
		}
	}
	decision = possible[0]
	for _, r := range possible[1:] {
		if strictness(r.Action) >= strictness(decision.Action) {
			decision = r
		}
	}
	return decision, matched
}

// strictness orders actions: deny over ask over allow; anything unknown is
// treated as ask.
func strictness(a Action) int {
	switch a {
	case Allow:
		return 0
	case Deny:
		return 2
	}
	return 1
}

// MustMatch reports whether pattern matches every string the template can
// stand for: each hole must fall entirely inside the span of one "*" of the
// pattern. A template without holes is matched as by Match.
func MustMatch(pattern, template string) bool {
	return templateMatch(pattern, template, false)
}

// MayMatch reports whether pattern matches at least one string the template
// can stand for (a hole may be filled with anything).
func MayMatch(pattern, template string) bool {
	return templateMatch(pattern, template, true)
}

func templateMatch(pattern, template string, may bool) bool {
	if !strings.Contains(template, Hole) {
		return Match(pattern, template)
	}
	if !utf8.ValidString(template) || !utf8.ValidString(pattern) {
		// Invalid bytes next to a hole may join what fills it into one
		// character: answer on the safe side of each question.
		return may
	}
	if home, rest, ok := homePrefix(pattern); ok {
		// The home directory is literal text; matching it against the
		// template's start is a match of a star-free pattern.
		n := len(home)
		if len(template) < n {
			// A hole inside the first n bytes could fill the rest.
			return may && globsIntersect(append(literal(home), globOf(rest)...), templateRunes(template))
		}
		if !strings.Contains(template[:n], Hole) {
			if template[:n] != home {
				return false
			}
			pattern, template = rest, template[n:]
		} else {
			if !may {
				return false // part of the home directory would be unknown
			}
			return globsIntersect(append(literal(home), globOf(rest)...), templateRunes(template))
		}
	}
	try := func(p string) bool {
		if may {
			return globsIntersect(globOf(p), templateRunes(template))
		}
		return holesWithinStars(globOf(p), templateRunes(template))
	}
	if prefix, ok := strings.CutSuffix(pattern, " *"); ok && try(prefix) {
		return true
	}
	return try(pattern)
}

// Runes of a glob: literal characters, and the two wildcards encoded out of
// the way of any character so that a literal "*" in a home directory stays
// literal.
const (
	gStar  = -1
	gQuest = -2
	gHole  = -3
)

func globOf(p string) []rune {
	out := make([]rune, 0, len(p))
	for _, r := range runesOf(p) {
		switch r {
		case '*':
			out = append(out, gStar)
		case '?':
			out = append(out, gQuest)
		default:
			out = append(out, r)
		}
	}
	return out
}

func literal(s string) []rune { return runesOf(s) }

// runesOf splits s into runes as Match reads it: an invalid byte is one
// element of its own, distinct from every rune and every other byte (a
// plain []rune conversion would make them all U+FFFD, and equal).
func runesOf(s string) []rune {
	out := make([]rune, 0, len(s))
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && w == 1 {
			r = invalidByte - rune(s[i])
		}
		out = append(out, r)
		i += w
	}
	return out
}

// invalidByte is the base of the values standing for invalid bytes, below
// the wildcards'.
const invalidByte = -1000

func templateRunes(t string) []rune {
	out := make([]rune, 0, len(t))
	for _, r := range runesOf(t) {
		if r == 0 {
			out = append(out, gHole)
		} else {
			out = append(out, r)
		}
	}
	return out
}

// holesWithinStars is glob matching where the subject is a template: a hole
// can only be absorbed by a star (which then matches whatever fills it), so
// a match holds for every filling.
func holesWithinStars(p, t []rune) bool {
	// reach[j] is true when p[:i] can match t[:j]; rows over i.
	reach := make([]bool, len(t)+1)
	next := make([]bool, len(t)+1)
	reach[0] = true
	for i := range p {
		clear(next)
		for j := 0; j <= len(t); j++ {
			switch p[i] {
			case gStar:
				// The star matches t[k:j] for some k ≤ j where reach[k].
				if reach[j] || (j > 0 && next[j-1]) {
					next[j] = true
				}
			case gQuest:
				if j > 0 && reach[j-1] && t[j-1] != gHole {
					next[j] = true
				}
			default:
				if j > 0 && reach[j-1] && t[j-1] == p[i] {
					next[j] = true
				}
			}
		}
		reach, next = next, reach
	}
	return reach[len(t)]
}

// globsIntersect reports whether some string matches both p (stars and
// question marks) and t (literals and holes): a search over pairs of
// positions, where a star or a hole may stay put while the other side
// consumes a character.
func globsIntersect(p, t []rune) bool {
	type pos struct{ i, j int }
	seen := make(map[pos]bool)
	stack := []pos{{0, 0}}
	push := func(i, j int) {
		q := pos{i, j}
		if !seen[q] {
			seen[q] = true
			stack = append(stack, q)
		}
	}
	seen[pos{0, 0}] = true
	for len(stack) > 0 {
		c := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if c.i == len(p) && c.j == len(t) {
			return true
		}
		// Empty matches of a star or a hole.
		if c.i < len(p) && p[c.i] == gStar {
			push(c.i+1, c.j)
		}
		if c.j < len(t) && t[c.j] == gHole {
			push(c.i, c.j+1)
		}
		if c.i >= len(p) || c.j >= len(t) {
			continue
		}
		// Both sides consume one character.
		pc, tc := p[c.i], t[c.j]
		pWild, tWild := pc == gStar || pc == gQuest, tc == gHole
		if !pWild && !tWild && pc != tc {
			continue
		}
		ni, nj := c.i+1, c.j+1
		if pc == gStar {
			ni = c.i
		}
		if tc == gHole {
			nj = c.j
		}
		if ni == c.i && nj == c.j {
			continue // a star against a hole: both stay, nothing gained
		}
		push(ni, nj)
	}
	return false
}

// DisplayTemplate renders a template for a person, each hole as "…".
func DisplayTemplate(t string) string { return strings.ReplaceAll(t, Hole, "…") }
