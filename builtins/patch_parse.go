package builtins

// The apply_patch format, as OpenCode's patch/index.ts (itself a port of
// Codex's apply-patch) reads it:
//
//	*** Begin Patch
//	*** Add File: path
//	+line
//	*** Delete File: path
//	*** Update File: path
//	*** Move to: new/path        (optional)
//	@@ optional context line
//	 unchanged line
//	-removed line
//	+added line
//	*** End of File              (optional: the chunk ends the file)
//	*** End Patch
//
// Where OpenCode silently drops input, this parser is a little kinder, and
// says so here: a blank line inside a chunk is a blank context line (models
// often strip the leading space), a chunk may start without "@@" (as Codex
// allows), "*** End of File" really anchors the chunk at the end of the file
// (OpenCode's loop never reaches that check), a unified-diff range such as
// "@@ -1,3 +1,4 @@" is not taken for a context line, and an insertion-only
// chunk after "@@ context" goes right after that context line instead of at
// the end of the file.

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"golang.org/x/text/unicode/norm"
)

// hunkKind says what a patch hunk does to its file.
type hunkKind string

const (
	hunkAdd    hunkKind = "add"
	hunkDelete hunkKind = "delete"
	hunkUpdate hunkKind = "update"
)

// patchHunk is one file's part of a patch.
type patchHunk struct {
	Kind     hunkKind
	Path     string
	MovePath string       // update only: the file's new path
	Contents string       // add only: the new file's text
	Chunks   []patchChunk // update only
}

// patchChunk is one "@@" section of an update.
type patchChunk struct {
	Context string   // the "@@ ..." line to seek first, "" for none
	Old     []string // lines to find (context and removed lines)
	New     []string // lines to put in their place (context and added lines)
	// From says, for each line of New, which line of Old it repeats (a
	// context line), or -1 for an added line: where the file's own bytes
	// are kept when only Unicode normalisation made the chunk match.
	From []int
	EOF  bool // the old lines end the file
}

const (
	patchBegin     = "*** Begin Patch"
	patchEnd       = "*** End Patch"
	patchAdd       = "*** Add File:"
	patchDelete    = "*** Delete File:"
	patchUpdate    = "*** Update File:"
	patchMove      = "*** Move to:"
	patchEndOfFile = "*** End of File"
)

var (
	errPatchMarkers = errors.New("Invalid patch format: missing Begin/End markers")
	unifiedRange    = regexp.MustCompile(`^-\d+(,\d+)? \+\d+(,\d+)? @@`)
	heredocOpen     = regexp.MustCompile(`^(?:apply_patch\s+)?(?:cat\s+)?<<-?\s*['"]?(\w+)['"]?\s*$`)
)

// parsePatch parses patch text into hunks. It accepts CRLF line endings and
// a shell heredoc wrapper (cat <<'EOF' ... EOF).
func parsePatch(text string) ([]patchHunk, error) {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	lines := strings.Split(stripHeredoc(strings.TrimSpace(text)), "\n")
	begin, end := -1, -1
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if begin < 0 && t == patchBegin {
			begin = i
		} else if begin >= 0 && t == patchEnd {
			end = i
			break
		}
	}
	if begin < 0 || end < 0 {
		return nil, errPatchMarkers
	}
	lines = lines[begin+1 : end]

	var hunks []patchHunk
	for i := 0; i < len(lines); {
		line := lines[i]
		switch {
		case strings.HasPrefix(line, patchAdd):
			path := strings.TrimSpace(line[len(patchAdd):])
			if path == "" {
				return nil, fmt.Errorf("line %d: %q names no file", begin+2+i, line)
			}
			i++
			var content []string
			for i < len(lines) && !strings.HasPrefix(lines[i], "***") {
				if s, ok := strings.CutPrefix(lines[i], "+"); ok {
					content = append(content, s)
				}
				i++
			}
			text := strings.Join(content, "\n")
			if len(content) > 0 {
				text += "\n"
			}
			hunks = append(hunks, patchHunk{Kind: hunkAdd, Path: path, Contents: text})
		case strings.HasPrefix(line, patchDelete):
			path := strings.TrimSpace(line[len(patchDelete):])
			if path == "" {
				return nil, fmt.Errorf("line %d: %q names no file", begin+2+i, line)
			}
			hunks = append(hunks, patchHunk{Kind: hunkDelete, Path: path})
			i++
		case strings.HasPrefix(line, patchUpdate):
			h := patchHunk{Kind: hunkUpdate, Path: strings.TrimSpace(line[len(patchUpdate):])}
			if h.Path == "" {
				return nil, fmt.Errorf("line %d: %q names no file", begin+2+i, line)
			}
			i++
			if i < len(lines) && strings.HasPrefix(lines[i], patchMove) {
				h.MovePath = strings.TrimSpace(lines[i][len(patchMove):])
				if h.MovePath == "" {
					return nil, fmt.Errorf("line %d: %q names no file", begin+2+i, lines[i])
				}
				i++
			}
			h.Chunks, i = parseChunks(lines, i)
			if len(h.Chunks) == 0 && h.MovePath == "" {
				return nil, fmt.Errorf("Update File %s has no changes: add \"@@\" chunks with ' ', '-' and '+' lines", h.Path)
			}
			hunks = append(hunks, h)
		default:
			i++ // text between hunks is ignored, as OpenCode does
		}
	}
	return hunks, nil
}

// parseChunks reads the chunks of an update from lines[i:], up to the next
// "***" header, and returns them with the index after them.
func parseChunks(lines []string, i int) ([]patchChunk, int) {
	var chunks []patchChunk
	var cur *patchChunk
	flush := func() {
		if cur != nil && (len(cur.Old) > 0 || len(cur.New) > 0 || cur.Context != "") {
			chunks = append(chunks, *cur)
		}
		cur = nil
	}
	for ; i < len(lines); i++ {
		line := lines[i]
		if line == patchEndOfFile || strings.TrimSpace(line) == patchEndOfFile {
			if cur != nil {
				cur.EOF = true
			}
			flush()
			continue
		}
		if strings.HasPrefix(line, "***") {
			break
		}
		if rest, ok := strings.CutPrefix(line, "@@"); ok {
			flush()
			ctx := strings.TrimSpace(rest)
			if unifiedRange.MatchString(ctx) {
				ctx = ""
			}
			cur = &patchChunk{Context: ctx}
			continue
		}
		if cur == nil {
			cur = &patchChunk{}
		}
		switch {
		case strings.HasPrefix(line, "-"):
			cur.Old = append(cur.Old, line[1:])
		case strings.HasPrefix(line, "+"):
			cur.New = append(cur.New, line[1:])
			cur.From = append(cur.From, -1)
		case strings.HasPrefix(line, `\ `):
			// "\ No newline at end of file" from a unified diff: no content.
		default:
			s := strings.TrimPrefix(line, " ")
			cur.Old = append(cur.Old, s)
			cur.New = append(cur.New, s)
			cur.From = append(cur.From, len(cur.Old)-1)
		}
	}
	flush()
	return chunks, i
}

// stripHeredoc removes a shell heredoc wrapper: a first line such as
// "cat <<'EOF'" and a last line repeating its tag.
func stripHeredoc(s string) string {
	first, rest, ok := strings.Cut(s, "\n")
	if !ok {
		return s
	}
	m := heredocOpen.FindStringSubmatch(strings.TrimSpace(first))
	if m == nil {
		return s
	}
	body, last, ok := cutLast(rest, "\n")
	if !ok || strings.TrimSpace(last) != m[1] {
		return s
	}
	return body
}

func cutLast(s, sep string) (before, after string, ok bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return "", s, true
	}
	return s[:i], s[i+len(sep):], true
}

// applyChunks applies an update's chunks to a file's text and returns the
// new text. The file's BOM and line ending (LF or CRLF) are kept; chunks are
// matched on LF text. Every chunk must be found, in order, or nothing is
// returned.
func applyChunks(path, original string, chunks []patchChunk) (string, error) {
	bom := strings.HasPrefix(original, utf8BOM)
	body := strings.TrimPrefix(original, utf8BOM)
	crlf := strings.Contains(body, "\r\n")
	if crlf {
		body = strings.ReplaceAll(body, "\r\n", "\n")
	}
	lines := strings.Split(body, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1] // the split after a final newline
	}

	type replacement struct {
		at, n int
		with  []string
	}
	form := formUnknown // the file's normalisation form, found when needed
	var reps []replacement
	next := 0
	for _, c := range chunks {
		if c.Context != "" {
			at, _ := seekSequence(lines, []string{c.Context}, next, false)
			if at < 0 {
				return "", fmt.Errorf("Failed to find context '%s' in %s", c.Context, path)
			}
			next = at + 1
		}
		if len(c.Old) == 0 {
			at := len(lines)
			if c.Context != "" && !c.EOF {
				at = next
			}
			reps = append(reps, replacement{at, 0, c.New})
			next = at
			continue
		}
		pattern, with := c.Old, c.New
		at, unicode := seekSequence(lines, pattern, next, c.EOF)
		if at < 0 && pattern[len(pattern)-1] == "" {
			// The chunk's last line is the file's final newline, which the
			// split above already removed.
			pattern = pattern[:len(pattern)-1]
			if len(with) > 0 && with[len(with)-1] == "" {
				with = with[:len(with)-1]
			}
			if len(pattern) > 0 {
				at, unicode = seekSequence(lines, pattern, next, c.EOF)
			}
		}
		if at < 0 {
			return "", fmt.Errorf("Failed to find expected lines in %s:\n%s", path, strings.Join(c.Old, "\n"))
		}
		if unicode {
			if form == formUnknown {
				form = textForm(body)
			}
			with = inFileForm(with, c.From, lines[at:at+len(pattern)], form)
		}
		reps = append(reps, replacement{at, len(pattern), with})
		next = at + len(pattern)
	}

	out := make([]string, 0, len(lines)+8)
	pos := 0
	for _, r := range reps {
		if r.at < pos {
			return "", fmt.Errorf("chunks of %s overlap: put them in file order", path)
		}
		out = append(out, lines[pos:r.at]...)
		out = append(out, r.with...)
		pos = r.at + r.n
	}
	out = append(out, lines[pos:]...)
	text := strings.Join(out, "\n") + "\n"
	if crlf {
		text = strings.ReplaceAll(text, "\n", "\r\n")
	}
	if bom {
		text = utf8BOM + text
	}
	return text, nil
}

// seekSequence finds pattern in lines at or after start, trying ever looser
// comparisons: exact, trailing whitespace ignored, surrounding whitespace
// ignored, Unicode punctuation folded to ASCII, and last the same with
// both sides in Unicode normalisation form C, so "é" typed as one code
// point matches "e" and a combining accent (NFD, as macOS file names and
// some editors store it). With eof the end of the file is tried first. It
// returns -1 when there is no match, and whether only the last comparison
// matched (the caller then keeps the file's own form).
func seekSequence(lines, pattern []string, start int, eof bool) (int, bool) {
	if len(pattern) == 0 {
		return -1, false
	}
	loose := func(s string) string { return normalizePunctuation(strings.TrimSpace(s)) }
	for i, eq := range []func(a, b string) bool{
		func(a, b string) bool { return a == b },
		func(a, b string) bool { return strings.TrimRight(a, " \t\r\v\f") == strings.TrimRight(b, " \t\r\v\f") },
		func(a, b string) bool { return strings.TrimSpace(a) == strings.TrimSpace(b) },
		func(a, b string) bool { return loose(a) == loose(b) },
		func(a, b string) bool { return norm.NFC.String(loose(a)) == norm.NFC.String(loose(b)) },
	} {
		if at := matchAt(lines, pattern, start, eof, eq); at >= 0 {
			return at, i == seekUnicode
		}
	}
	return -1, false
}

// seekUnicode is the index of seekSequence's normalisation comparison.
const seekUnicode = 4

// normForm is the Unicode normalisation a text is stored in.
type normForm int

const (
	formUnknown normForm = iota // not looked at yet
	formNone                    // no single form: plain ASCII, or mixed
	formNFC                     // composed, as most editors write
	formNFD                     // decomposed, as macOS file names are
)

// textForm says which normalisation form s is consistently in. Text that
// is in both (no character with a decomposition) or in neither (mixed)
// has no form to keep.
func textForm(s string) normForm {
	nfc, nfd := norm.NFC.IsNormalString(s), norm.NFD.IsNormalString(s)
	switch {
	case nfc && !nfd:
		return formNFC
	case nfd && !nfc:
		return formNFD
	}
	return formNone
}

// inFileForm is a chunk's new lines for a place in the file that matched
// only after normalisation: a context line keeps the file's bytes (matched,
// the stretch of the file it repeats), and an added line is put in the
// file's form, so the patch does not turn an NFD file into a mixed one.
func inFileForm(with []string, from []int, matched []string, form normForm) []string {
	out := make([]string, len(with))
	for i, l := range with {
		switch {
		case i < len(from) && from[i] >= 0 && from[i] < len(matched):
			out[i] = matched[from[i]]
		case form == formNFC:
			out[i] = norm.NFC.String(l)
		case form == formNFD:
			out[i] = norm.NFD.String(l)
		default:
			out[i] = l
		}
	}
	return out
}

func matchAt(lines, pattern []string, start int, eof bool, eq func(a, b string) bool) int {
	matches := func(at int) bool {
		for j, p := range pattern {
			if !eq(lines[at+j], p) {
				return false
			}
		}
		return true
	}
	if eof {
		if at := len(lines) - len(pattern); at >= start && matches(at) {
			return at
		}
	}
	for at := start; at+len(pattern) <= len(lines); at++ {
		if matches(at) {
			return at
		}
	}
	return -1
}

// punctuation folds the typographic characters models like to produce into
// the ASCII a source file most likely has.
var punctuation = strings.NewReplacer(
	"\u2018", "'", "\u2019", "'", "\u201A", "'", "\u201B", "'",
	"\u201C", `"`, "\u201D", `"`, "\u201E", `"`, "\u201F", `"`,
	"\u2010", "-", "\u2011", "-", "\u2012", "-", "\u2013", "-", "\u2014", "-", "\u2015", "-",
	"\u2026", "...",
	"\u00A0", " ",
)

func normalizePunctuation(s string) string { return punctuation.Replace(s) }
