package builtins

import (
	"fmt"
	"strings"

	"github.com/pmezard/go-difflib/difflib"
)

// diffContext is how many unchanged lines surround each change in a hunk.
const diffContext = 3

// fileDiff is a unified diff of one file and its line counts.
type fileDiff struct {
	Unified   string // "" when the texts are equal
	Additions int
	Deletions int
}

// diffTexts returns the unified diff from before to after, labelled with
// name, plus the number of added and deleted lines.
//
// Line matching is go-difflib's SequenceMatcher (a port of Python's
// difflib, small and dependency-free); the hunks are formatted here rather
// than with difflib.GetUnifiedDiffString for two reasons: the common prefix
// and suffix are cut off before matching, which turns the matcher's
// quadratic worst case into work proportional to the changed region (an edit
// of one line in a 10 000-line file costs microseconds), and a last line
// without a newline gets git's "\ No newline at end of file" marker, which
// difflib does not write.
func diffTexts(name, before, after string) fileDiff {
	if before == after {
		return fileDiff{}
	}
	a, b := splitKeepEOL(before), splitKeepEOL(after)

	// Cut the common prefix and suffix, keeping diffContext lines of each
	// so hunks still show their surroundings.
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	off := max(0, pre-diffContext)
	end := max(0, suf-diffContext)
	am, bm := a[off:len(a)-end], b[off:len(b)-end]

	m := difflib.NewMatcher(am, bm)
	var d fileDiff
	for _, op := range m.GetOpCodes() {
		switch op.Tag {
		case 'r':
			d.Deletions += op.I2 - op.I1
			d.Additions += op.J2 - op.J1
		case 'd':
			d.Deletions += op.I2 - op.I1
		case 'i':
			d.Additions += op.J2 - op.J1
		}
	}

	var sb strings.Builder
	fmt.Fprintf(&sb, "--- %s\n+++ %s\n", name, name)
	for _, group := range m.GetGroupedOpCodes(diffContext) {
		first, last := group[0], group[len(group)-1]
		fmt.Fprintf(&sb, "@@ -%s +%s @@\n",
			hunkRange(off+first.I1, off+last.I2), hunkRange(off+first.J1, off+last.J2))
		for _, op := range group {
			if op.Tag == 'e' {
				writeLines(&sb, ' ', am[op.I1:op.I2])
				continue
			}
			if op.Tag == 'r' || op.Tag == 'd' {
				writeLines(&sb, '-', am[op.I1:op.I2])
			}
			if op.Tag == 'r' || op.Tag == 'i' {
				writeLines(&sb, '+', bm[op.J1:op.J2])
			}
		}
	}
	d.Unified = sb.String()
	return d
}

// hunkRange formats a 0-based half-open line range as unified diff does:
// 1-based start, count omitted when it is 1, and an empty range named by
// the line before it.
func hunkRange(start, stop int) string {
	n := stop - start
	switch {
	case n == 1:
		return fmt.Sprintf("%d", start+1)
	case n == 0:
		return fmt.Sprintf("%d,0", start)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

func writeLines(sb *strings.Builder, prefix byte, lines []string) {
	for _, l := range lines {
		sb.WriteByte(prefix)
		sb.WriteString(l)
		if !strings.HasSuffix(l, "\n") {
			sb.WriteString("\n\\ No newline at end of file\n")
		}
	}
}

// splitKeepEOL splits s into lines that keep their "\n"; the last line has
// none when s does not end with one.
func splitKeepEOL(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// maxFileDiffContent bounds the contents a filediff carries: a client
// rendering an edit needs the file, but a result must not carry two copies
// of a huge one.
const maxFileDiffContent = 256 << 10

// fileDiffMeta is OpenCode's filediff metadata of a changed file: its path,
// its contents before and after (LF line endings, as the diff shows them),
// and the counts, so clients built for OpenCode's events can render the
// change. Contents larger than maxFileDiffContent are left out (empty,
// with "truncated": true); the unified diff in "diff" still shows the
// change.
func fileDiffMeta(path, before, after string, d fileDiff) map[string]any {
	m := map[string]any{"file": path, "additions": d.Additions, "deletions": d.Deletions}
	if len(before) > maxFileDiffContent || len(after) > maxFileDiffContent {
		m["before"], m["after"], m["truncated"] = "", "", true
		return m
	}
	m["before"], m["after"] = before, after
	return m
}
