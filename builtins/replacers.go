package builtins

// The edit tool's replacer cascade, after OpenCode's tool/edit.ts (whose
// strategies in turn come from Cline's diff-apply evals and Gemini CLI's
// editCorrector). Models often get whitespace, indentation or escaping of
// oldString slightly wrong; each replacer, from strictest to loosest,
// proposes pieces of the file that the model probably meant, and the first
// piece that occurs exactly once wins. Keeping OpenCode's order and
// thresholds means a model tuned against OpenCode edits the same way here.

import (
	"errors"
	"iter"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The edit errors, worded as OpenCode words them so models trained on its
// transcripts react the same way.
var (
	errSameStrings   = errors.New("No changes to apply: oldString and newString are identical.")
	errNotFound      = errors.New("Could not find oldString in the file. It must match exactly, including whitespace, indentation, and line endings.")
	errMultipleMatch = errors.New("Found multiple matches for oldString. Provide more surrounding context to make the match unique, or set replaceAll to change every occurrence.")
)

// Similarity thresholds of the block-anchor replacer: one candidate block is
// accepted on its anchors alone; among several, the best must reach 0.3.
const (
	singleCandidateSimilarity    = 0.0
	multipleCandidatesSimilarity = 0.3
)

// A replacer proposes substrings of content that find probably means.
type replacer func(content, find string) iter.Seq[string]

// namedReplacer pairs a replacer with the name reported in edit metadata.
type namedReplacer struct {
	name string
	fn   replacer
}

// replacers is the cascade, in OpenCode's order.
var replacers = []namedReplacer{
	{"exact", simpleReplacer},
	{"line-trimmed", lineTrimmedReplacer},
	{"block-anchor", blockAnchorReplacer},
	{"whitespace-normalized", whitespaceNormalizedReplacer},
	{"indentation-flexible", indentationFlexibleReplacer},
	{"escape-normalized", escapeNormalizedReplacer},
	{"trimmed-boundary", trimmedBoundaryReplacer},
	{"context-aware", contextAwareReplacer},
	{"multi-occurrence", multiOccurrenceReplacer},
}

// replace replaces oldString in content with newString using the first
// replacer whose candidate occurs exactly once (or at all, with all), and
// returns the new content and the name of the replacer that matched.
//
// One deliberate difference from OpenCode: an empty candidate (which the
// trimmed-boundary replacer proposes for an all-whitespace oldString) is
// skipped, because "replacing" the empty string would insert newString at
// the start of the file, or between every character with replaceAll.
func replace(content, oldString, newString string, all bool) (string, string, error) {
	return replaceTraced(content, oldString, newString, all, nil)
}

// replaceTraced is replace that reports each replacer it reaches to trace
// (nil allowed); tests use it to prove every replacer is reachable.
func replaceTraced(content, oldString, newString string, all bool, trace func(name string)) (string, string, error) {
	if oldString == newString {
		return "", "", errSameStrings
	}
	if oldString == "" {
		return "", "", errNotFound // the tools create a file for an empty oldString before getting here
	}
	notFound := true
	for _, r := range replacers {
		if trace != nil {
			trace(r.name)
		}
		for search := range r.fn(content, oldString) {
			if search == "" {
				continue
			}
			index := strings.Index(content, search)
			if index < 0 {
				continue
			}
			notFound = false
			if all {
				return strings.ReplaceAll(content, search, newString), r.name, nil
			}
			if strings.LastIndex(content, search) != index {
				continue
			}
			return content[:index] + newString + content[index+len(search):], r.name, nil
		}
	}
	if notFound {
		return "", "", errNotFound
	}
	return "", "", errMultipleMatch
}

// simpleReplacer proposes oldString itself.
func simpleReplacer(_, find string) iter.Seq[string] {
	return func(yield func(string) bool) { yield(find) }
}

// lineTrimmedReplacer proposes every run of whole lines that equals find
// line by line after trimming each line.
func lineTrimmedReplacer(content, find string) iter.Seq[string] {
	return func(yield func(string) bool) {
		lines := strings.Split(content, "\n")
		search := dropTrailingEmpty(strings.Split(find, "\n"))
		if len(search) == 0 {
			return
		}
		starts := lineStarts(lines)
	outer:
		for i := 0; i+len(search) <= len(lines); i++ {
			for j, s := range search {
				if strings.TrimSpace(lines[i+j]) != strings.TrimSpace(s) {
					continue outer
				}
			}
			if !yield(blockText(content, lines, starts, i, i+len(search)-1)) {
				return
			}
		}
	}
}

// anchors splits find into lines for the anchor-based replacers and
// returns its trimmed first and last lines; ok is false when find has
// fewer than three lines, too few to anchor a block.
func anchors(find string) (search []string, first, last string, ok bool) {
	search = strings.Split(find, "\n")
	if len(search) < 3 {
		return nil, "", "", false
	}
	search = dropTrailingEmpty(search)
	return search, strings.TrimSpace(search[0]), strings.TrimSpace(search[len(search)-1]), true
}

// blockAnchorReplacer matches blocks of three or more lines by their first
// and last lines (trimmed) and judges the lines between by Levenshtein
// similarity. With one candidate the anchors suffice; with several, the most
// similar wins if its similarity reaches multipleCandidatesSimilarity.
func blockAnchorReplacer(content, find string) iter.Seq[string] {
	return func(yield func(string) bool) {
		search, first, last, ok := anchors(find)
		if !ok {
			return
		}
		lines := strings.Split(content, "\n")

		type span struct{ start, end int }
		var cands []span
		for i := range lines {
			if strings.TrimSpace(lines[i]) != first {
				continue
			}
			for j := i + 2; j < len(lines); j++ {
				if strings.TrimSpace(lines[j]) == last {
					cands = append(cands, span{i, j})
					break // only the first closing anchor after this opening one
				}
			}
		}
		if len(cands) == 0 {
			return
		}
		starts := lineStarts(lines)

		if len(cands) == 1 {
			c := cands[0]
			// OpenCode sums similarity line by line and stops as soon as it
			// reaches the single-candidate threshold; with a threshold of 0
			// a lone candidate is always accepted, so the middle lines need
			// not be compared at all.
			if similarity(lines, search, c.start, c.end, true) >= singleCandidateSimilarity {
				yield(blockText(content, lines, starts, c.start, c.end))
			}
			return
		}
		best, bestSim := -1, -1.0
		for k, c := range cands {
			if s := similarity(lines, search, c.start, c.end, false); s > bestSim {
				best, bestSim = k, s
			}
		}
		if bestSim >= multipleCandidatesSimilarity {
			c := cands[best]
			yield(blockText(content, lines, starts, c.start, c.end))
		}
	}
}

// similarity is the block-anchor score of lines[start..end] against search:
// the mean over the middle lines of 1 - distance/maxLen of the trimmed
// lines (pairs of empty lines count as 0, as in OpenCode). lazy stops as
// soon as the single-candidate threshold is reached.
func similarity(lines, search []string, start, end int, lazy bool) float64 {
	actual := end - start + 1
	check := min(len(search)-2, actual-2)
	if check <= 0 {
		return 1
	}
	sim := 0.0
	for j := 1; j < len(search)-1 && j < actual-1; j++ {
		a := strings.TrimSpace(lines[start+j])
		b := strings.TrimSpace(search[j])
		maxLen := max(utf8.RuneCountInString(a), utf8.RuneCountInString(b))
		if maxLen == 0 {
			continue
		}
		sim += (1 - float64(levenshtein(a, b))/float64(maxLen)) / float64(check)
		if lazy && sim >= singleCandidateSimilarity {
			break
		}
	}
	return sim
}

// whitespaceNormalizedReplacer compares with every run of whitespace
// collapsed to one space: single lines (or the part of a line matching
// find's words), then blocks of as many lines as find has.
func whitespaceNormalizedReplacer(content, find string) iter.Seq[string] {
	return func(yield func(string) bool) {
		want := normalizeWhitespace(find)
		lines := strings.Split(content, "\n")
		var words []string // split on first use: most lines never need it
		for _, line := range lines {
			got := normalizeWhitespace(line)
			if got == want {
				if !yield(line) {
					return
				}
				continue
			}
			if want == "" || !strings.Contains(got, want) {
				continue
			}
			if words == nil {
				words = strings.Fields(find)
			}
			if m := matchWords(line, words); m != "" {
				if !yield(m) {
					return
				}
			}
		}
		findLines := strings.Split(find, "\n")
		if len(findLines) < 2 {
			return
		}
		for i := 0; i+len(findLines) <= len(lines); i++ {
			block := strings.Join(lines[i:i+len(findLines)], "\n")
			if normalizeWhitespace(block) == want {
				if !yield(block) {
					return
				}
			}
		}
	}
}

// matchWords returns the leftmost part of line made of words separated by
// runs of whitespace — what OpenCode's regular expression word\s+word finds,
// without compiling a pattern per call (and without failing on invalid
// UTF-8, which Go's regexp rejects).
func matchWords(line string, words []string) string {
	if len(words) == 0 {
		return ""
	}
	for start := 0; start < len(line); {
		i := strings.Index(line[start:], words[0])
		if i < 0 {
			return ""
		}
		s := start + i
		pos, ok := s+len(words[0]), true
		for _, w := range words[1:] {
			j := pos
			for j < len(line) {
				r, size := utf8.DecodeRuneInString(line[j:])
				if !unicode.IsSpace(r) {
					break
				}
				j += size
			}
			if j == pos || !strings.HasPrefix(line[j:], w) {
				ok = false
				break
			}
			pos = j + len(w)
		}
		if ok {
			return line[s:pos]
		}
		start = s + 1
	}
	return ""
}

func normalizeWhitespace(s string) string { return strings.Join(strings.Fields(s), " ") }

// indentationFlexibleReplacer compares blocks with their common leading
// indentation removed, so a block indented differently as a whole matches.
func indentationFlexibleReplacer(content, find string) iter.Seq[string] {
	return func(yield func(string) bool) {
		want := removeIndentation(find)
		lines := strings.Split(content, "\n")
		n := strings.Count(find, "\n") + 1
		for i := 0; i+n <= len(lines); i++ {
			block := strings.Join(lines[i:i+n], "\n")
			if removeIndentation(block) == want {
				if !yield(block) {
					return
				}
			}
		}
	}
}

func removeIndentation(text string) string {
	lines := strings.Split(text, "\n")
	minIndent := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if n := len(l) - len(strings.TrimLeftFunc(l, unicode.IsSpace)); minIndent < 0 || n < minIndent {
			minIndent = n
		}
	}
	if minIndent < 0 {
		return text
	}
	for i, l := range lines {
		if strings.TrimSpace(l) != "" {
			lines[i] = l[minIndent:]
		}
	}
	return strings.Join(lines, "\n")
}

// escapeNormalizedReplacer undoes escapes a model left in a string (\n, \t,
// \", ...) and looks for the result, then for blocks whose unescaped form
// equals it.
func escapeNormalizedReplacer(content, find string) iter.Seq[string] {
	return func(yield func(string) bool) {
		want := unescape(find)
		if strings.Contains(content, want) {
			if !yield(want) {
				return
			}
		}
		lines := strings.Split(content, "\n")
		n := strings.Count(want, "\n") + 1
		for i := 0; i+n <= len(lines); i++ {
			block := strings.Join(lines[i:i+n], "\n")
			if unescape(block) == want {
				if !yield(block) {
					return
				}
			}
		}
	}
}

// unescape replaces the escape sequences \n \t \r \' \" \` \\ \$ and a
// backslash before a newline with the characters they stand for.
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		switch n := s[i+1]; n {
		case 'n', '\n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case '\'', '"', '`', '\\', '$':
			b.WriteByte(n)
		default:
			b.WriteByte(c)
			continue
		}
		i++
	}
	return b.String()
}

// trimmedBoundaryReplacer drops leading and trailing whitespace of find and
// looks for that, then for line blocks that trim to it.
func trimmedBoundaryReplacer(content, find string) iter.Seq[string] {
	return func(yield func(string) bool) {
		trimmed := strings.TrimSpace(find)
		if trimmed == find {
			return
		}
		if strings.Contains(content, trimmed) {
			if !yield(trimmed) {
				return
			}
		}
		lines := strings.Split(content, "\n")
		n := strings.Count(find, "\n") + 1
		for i := 0; i+n <= len(lines); i++ {
			block := strings.Join(lines[i:i+n], "\n")
			if strings.TrimSpace(block) == trimmed {
				if !yield(block) {
					return
				}
			}
		}
	}
}

// contextAwareReplacer uses the first and last lines as anchors and accepts
// the first block of find's length where at least half of the non-empty
// middle lines are equal after trimming.
func contextAwareReplacer(content, find string) iter.Seq[string] {
	return func(yield func(string) bool) {
		search, first, last, ok := anchors(find)
		if !ok {
			return
		}
		lines := strings.Split(content, "\n")
		for i := range lines {
			if strings.TrimSpace(lines[i]) != first {
				continue
			}
			for j := i + 2; j < len(lines); j++ {
				if strings.TrimSpace(lines[j]) != last {
					continue
				}
				block := lines[i : j+1]
				if len(block) == len(search) {
					matching, total := 0, 0
					for k := 1; k < len(block)-1; k++ {
						a, b := strings.TrimSpace(block[k]), strings.TrimSpace(search[k])
						if a != "" || b != "" {
							total++
							if a == b {
								matching++
							}
						}
					}
					if total == 0 || float64(matching)/float64(total) >= 0.5 {
						yield(strings.Join(block, "\n"))
						return // only the first acceptable block
					}
				}
				break
			}
		}
	}
}

// multiOccurrenceReplacer proposes find once per exact occurrence; the
// cascade then replaces them all (replaceAll) or reports the ambiguity.
func multiOccurrenceReplacer(content, find string) iter.Seq[string] {
	return func(yield func(string) bool) {
		if find == "" {
			return
		}
		for start := 0; ; {
			i := strings.Index(content[start:], find)
			if i < 0 || !yield(find) {
				return
			}
			start += i + len(find)
		}
	}
}

// dropTrailingEmpty drops one trailing empty line (find ended with "\n").
func dropTrailingEmpty(lines []string) []string {
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		return lines[:len(lines)-1]
	}
	return lines
}

// lineStarts returns the byte offset of each line in the joined content.
func lineStarts(lines []string) []int {
	starts := make([]int, len(lines))
	off := 0
	for i, l := range lines {
		starts[i] = off
		off += len(l) + 1
	}
	return starts
}

// blockText is content's text of lines first..last (inclusive), without the
// final newline.
func blockText(content string, lines []string, starts []int, first, last int) string {
	return content[starts[first] : starts[last]+len(lines[last])]
}

// levenshtein is the edit distance of a and b in runes, with two rows of
// memory instead of OpenCode's full matrix.
func levenshtein(a, b string) int {
	if a == b {
		return 0
	}
	ra, rb := []rune(a), []rune(b)
	if len(ra) == 0 || len(rb) == 0 {
		return max(len(ra), len(rb))
	}
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
