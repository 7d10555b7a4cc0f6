package builtins

import (
	"bytes"
	"cmp"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/permission"
)

//go:embed grep.txt
var grepDescription string

// Grep limits.
const (
	grepMaxMatches    = 100  // matches shown; the count covers all of them
	grepMaxLineLength = 2000 // longer lines are cut with "..."
	grepBinaryProbe   = 8 << 10
	grepChunk         = 64 << 10 // read size and first buffer; larger files are searched chunk by chunk
	grepKeptBuffer    = 8 << 20  // largest read buffer kept for the next search
)

// grepParams are the grep tool's arguments.
type grepParams struct {
	Pattern string `json:"pattern" jsonschema:"description=The regex pattern to search for in file contents"`
	Path    string `json:"path,omitempty" jsonschema:"description=The directory to search in. Defaults to the current working directory."`
	Include string `json:"include,omitempty" jsonschema:"description=File pattern to include in the search (e.g. \"*.js\", \"*.{ts,tsx}\")"`
}

// Grep returns the grep tool: a regular-expression search over file
// contents, natively in Go. It walks the tree in parallel honouring
// .gitignore, searches files on the walking goroutines, and shows up to 100
// matching lines, newest files first.
func Grep() runtime.Tool {
	return runtime.Declare(runtime.Define("grep", grepDescription, runGrep), grepTraits)
}

// grepTraits: asks "grep" for the pattern itself; changes nothing.
var grepTraits = runtime.Traits{ChecksOwnPermission: true, Hints: &runtime.Hints{ReadOnly: true, Idempotent: true}}

func runGrep(ctx context.Context, p grepParams, tc *runtime.Context) (runtime.Result, error) {
	if p.Pattern == "" {
		return runtime.Result{}, errors.New("pattern is required: give the regular expression to search for")
	}
	m, err := compileMatcher(p.Pattern)
	if err != nil {
		return runtime.Result{}, err
	}
	if p.Include != "" && !doublestar.ValidatePattern(p.Include) {
		return runtime.Result{}, fmt.Errorf("invalid include pattern %q: check its brackets and braces (example: \"*.{ts,tsx}\")", p.Include)
	}
	root := tc.ResolvePath(cmp.Or(p.Path, "."))
	if err := tc.CheckExternalDirectory(ctx, root, true); err != nil {
		return runtime.Result{}, err
	}
	if err := tc.Ask(ctx, permission.Request{
		Permission: "grep",
		Patterns:   []string{p.Pattern},
		Always:     []string{"*"},
		Metadata:   map[string]any{"pattern": p.Pattern, "path": p.Path, "include": p.Include},
	}); err != nil {
		return runtime.Result{}, err
	}
	links := newExternalLinks(ctx, tc, root)
	res, err := grepTree(ctx, root, m, p.Include, links)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return runtime.Result{}, fmt.Errorf("search path %s does not exist: give an existing directory, or omit path to search the project", root)
		}
		return runtime.Result{}, fmt.Errorf("grep %s: %w", root, err)
	}
	keptBack := res.keepReadable(newOutrightReads(ctx, tc))
	out := res.result(p.Pattern)
	if keptBack > 0 {
		out.Output += fmt.Sprintf("\n\n(Left out the matches in %d %s the read rules do not allow without asking; read one with the read tool to be asked.)", keptBack, plural(keptBack, "file", "files"))
		out.Metadata["keptBack"] = keptBack
	}
	if f := links.footer(); f != "" {
		out.Output += "\n\n" + f
		out.Metadata["skippedLinks"] = links.count()
	}
	return out, nil
}

// grepMatcher finds the lines that match a pattern. When every match must
// contain one of a few literals (needles), it looks for them in the whole
// buffer with vectorised byte searches and runs the regexp only on the lines
// around the hits, which is what makes a Go regexp search competitive with
// ripgrep: most files are rejected without running the regexp at all.
type grepMatcher struct {
	re       *regexp.Regexp
	needles  []grepNeedle // every match contains one of them; nil when unknown
	complete bool         // the pattern is exactly needles[0]: a hit is a match
	run      *grepRun     // without needles: a run of bytes every match holds; nil when none
	prog     *syntax.Prog // for each worker's lineDFA (grep_dfa.go); nil: the regexp decides
}

// grepNeedle is a literal to look for; fold means ASCII case-insensitive
// (s is then lower case).
type grepNeedle struct {
	s    []byte
	fold bool
}

// grepMaxNeedles bounds the alternatives searched for: each one is a pass
// over the buffer.
const grepMaxNeedles = 8

func compileMatcher(pattern string) (*grepMatcher, error) {
	re, err := regexp.Compile(pattern)
	if err != nil {
		msg := err.Error()
		var se *syntax.Error
		if errors.As(err, &se) {
			msg = fmt.Sprintf("%s in %q", se.Code, se.Expr)
		}
		return nil, fmt.Errorf("invalid regular expression %q: %s; the syntax is Go's RE2 (no lookaround or backreferences), escape special characters such as ( [ { . * + ? with a backslash", pattern, msg)
	}
	m := &grepMatcher{re: re}
	if prefix, complete := re.LiteralPrefix(); complete && prefix != "" {
		m.needles, m.complete = []grepNeedle{{s: []byte(prefix)}}, true
		return m, nil
	}
	m.prog = dfaProg(pattern)
	if parsed, err := syntax.Parse(pattern, syntax.Perl); err == nil {
		parsed = parsed.Simplify()
		if m.needles = requiredNeedles(parsed); m.needles == nil {
			m.run = requiredRun(parsed) // grep_runs.go
		}
	}
	return m, nil
}

// requiredNeedles returns literals one of which every match of re
// contains, the longest it can cheaply prove, or nil.
func requiredNeedles(re *syntax.Regexp) []grepNeedle {
	switch re.Op {
	case syntax.OpLiteral:
		return literalNeedle(re.Rune, re.Flags&syntax.FoldCase != 0)
	case syntax.OpCapture, syntax.OpPlus:
		return requiredNeedles(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredNeedles(re.Sub[0])
		}
	case syntax.OpAlternate:
		var all []grepNeedle
		for _, sub := range re.Sub {
			ns := requiredNeedles(sub)
			if ns == nil || len(all)+len(ns) > grepMaxNeedles {
				return nil
			}
			all = append(all, ns...)
		}
		return all
	case syntax.OpConcat:
		var best []grepNeedle
		consider := func(ns []grepNeedle) {
			if needlesScore(ns) > needlesScore(best) {
				best = ns
			}
		}
		// Adjacent literals with the same case rule form one longer needle.
		var run []rune
		runFold := false
		for _, sub := range re.Sub {
			if sub.Op == syntax.OpLiteral {
				fold := sub.Flags&syntax.FoldCase != 0
				if len(run) > 0 && fold != runFold {
					consider(literalNeedle(run, runFold))
					run = nil
				}
				run, runFold = append(run, sub.Rune...), fold
				continue
			}
			if len(run) > 0 {
				consider(literalNeedle(run, runFold))
				run = nil
			}
			consider(requiredNeedles(sub))
		}
		if len(run) > 0 {
			consider(literalNeedle(run, runFold))
		}
		return best
	}
	return nil
}

// needlesScore ranks needle sets: longer shortest needle first, then fewer
// needles, then case-sensitive ones.
func needlesScore(ns []grepNeedle) int {
	if len(ns) == 0 {
		return 0
	}
	shortest := len(ns[0].s)
	fold := 0
	for _, n := range ns {
		shortest = min(shortest, len(n.s))
		if n.fold {
			fold = 1
		}
	}
	return shortest*100 - len(ns)*2 - fold
}

// literalNeedle makes a needle of a literal. A case-insensitive one is
// reduced to its longest piece of ASCII characters whose only case
// variants are ASCII: Go folds k to the Kelvin sign and s to the long s,
// which an ASCII comparison would miss.
func literalNeedle(runes []rune, fold bool) []grepNeedle {
	if !fold {
		if len(runes) == 0 {
			return nil
		}
		return []grepNeedle{{s: []byte(string(runes))}}
	}
	var best, cur []byte
	for _, r := range runes {
		lr := unicode.ToLower(r)
		if r >= utf8.RuneSelf || lr == 'k' || lr == 's' {
			cur = nil
			continue
		}
		cur = append(cur, byte(lr))
		if len(cur) > len(best) {
			best = slices.Clone(cur)
		}
	}
	if len(best) == 0 {
		return nil
	}
	return []grepNeedle{{s: best, fold: true}}
}

// index returns the first position of n in buf, or -1.
func (n *grepNeedle) index(buf []byte) int {
	if !n.fold {
		return indexRare(buf, n.s)
	}
	// Look for the first byte in either case, then compare the rest.
	lo, up := n.s[0], n.s[0]
	if 'a' <= lo && lo <= 'z' {
		up = lo - 'a' + 'A'
	}
	nextLo, nextUp := -2, -2
	for pos := 0; pos+len(n.s) <= len(buf); {
		if nextLo != -1 && nextLo < pos {
			if nextLo = bytes.IndexByte(buf[pos:], lo); nextLo >= 0 {
				nextLo += pos
			}
		}
		if up != lo && nextUp != -1 && nextUp < pos {
			if nextUp = bytes.IndexByte(buf[pos:], up); nextUp >= 0 {
				nextUp += pos
			}
		}
		at := nextLo
		if up != lo && nextUp >= 0 && (at < 0 || nextUp < at) {
			at = nextUp
		}
		if at < 0 || at+len(n.s) > len(buf) {
			return -1
		}
		if equalFoldASCII(buf[at:at+len(n.s)], n.s) {
			return at
		}
		pos = at + 1
	}
	return -1
}

// indexRare is bytes.Index(buf, s), looking first for the byte of s that
// is rarest in text (byteCommonness) rather than its first byte: in source
// code "ErrUnexpectedEOF" starts with a letter found every few dozen bytes,
// and each false start costs a call and a comparison, while its F is far
// rarer. ripgrep chooses its needle byte the same way.
func indexRare(buf, s []byte) int {
	if len(s) < 2 {
		return bytes.Index(buf, s)
	}
	r := 0
	for i := 1; i < len(s); i++ {
		if byteCommonness[s[i]] < byteCommonness[s[r]] {
			r = i
		}
	}
	c := s[r]
	for pos := r; pos < len(buf); {
		i := bytes.IndexByte(buf[pos:], c)
		if i < 0 {
			return -1
		}
		start := pos + i - r
		if start+len(s) > len(buf) {
			return -1
		}
		if bytes.Equal(buf[start:start+len(s)], s) {
			return start
		}
		pos += i + 1
	}
	return -1
}

// byteCommonness ranks bytes by how often they appear in source code and
// text: 255 for the most common (space), 0 for the rarest. indexRare
// needs only a rough order. It was measured on about 200 MB of files of
// fifteen kinds found on a development machine — C, Go, Python, Perl,
// JavaScript, TypeScript, shell, HTML, CSS, XML, JSON, YAML, TOML,
// Markdown and plain text, each kind weighing the same, files with more
// than one control byte in a thousand left out. In code, upper-case
// letters follow other orders than in English prose: F (Func, False,
// Fatal, Fprintf) is more common than U, which an English-letter order
// ranked the other way.
var byteCommonness = [256]uint8{
	0, 24, 1, 2, 3, 4, 5, 27, 6, 228, 246, 28, 31, 80, 7, 8, // 0x0–0xf
	9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 26, 20, 21, 22, 23, // 0x10–0x1f
	255, 168, 239, 199, 184, 162, 176, 195, 222, 223, 207, 169, 227, 230, 235, 236, // 0x20–0x2f
	229, 221, 219, 212, 204, 202, 208, 192, 197, 196, 233, 205, 220, 225, 224, 163, // 0x30–0x3f
	166, 213, 183, 206, 191, 216, 189, 182, 177, 210, 164, 172, 198, 186, 194, 193, // 0x40–0x4f
	190, 159, 203, 215, 214, 181, 173, 171, 170, 167, 157, 188, 178, 187, 155, 231, // 0x50–0x5f
	185, 249, 232, 245, 243, 254, 237, 234, 238, 251, 180, 209, 244, 242, 250, 252, // 0x60–0x6f
	240, 175, 247, 248, 253, 241, 217, 211, 218, 226, 179, 201, 174, 200, 158, 25, // 0x70–0x7f
	154, 146, 150, 148, 109, 112, 82, 84, 122, 83, 87, 115, 125, 85, 69, 79, // 0x80–0x8f
	128, 74, 72, 81, 151, 138, 99, 76, 103, 107, 73, 90, 111, 102, 78, 104, // 0x90–0x9f
	161, 143, 77, 105, 137, 86, 95, 108, 117, 121, 100, 91, 89, 116, 75, 92, // 0xa0–0xaf
	145, 129, 98, 120, 130, 136, 97, 93, 141, 113, 132, 131, 142, 135, 134, 124, // 0xb0–0xbf
	63, 58, 160, 153, 110, 94, 67, 62, 59, 61, 60, 55, 64, 51, 139, 96, // 0xc0–0xcf
	165, 152, 65, 56, 54, 53, 57, 140, 118, 101, 44, 48, 40, 32, 38, 49, // 0xd0–0xdf
	66, 126, 156, 149, 114, 147, 144, 127, 133, 119, 68, 106, 123, 70, 52, 88, // 0xe0–0xef
	71, 36, 47, 45, 41, 33, 46, 37, 50, 34, 42, 35, 39, 43, 30, 29, // 0xf0–0xff
}

// equalFoldASCII reports whether b equals lower ignoring ASCII case.
func equalFoldASCII(b, lower []byte) bool {
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// searchBlock calls emit for each matching line of buf, which holds whole
// lines; lineNo is the number of buf's first line. Line numbers are counted
// only up to each match, so a file without matches is scanned by the needle
// search and nothing else.
//
// d, the calling worker's DFA for the pattern (nil: none), decides the
// lines it can; the regexp the others.
func (m *grepMatcher) searchBlock(buf []byte, lineNo int, d *lineDFA, emit func(lineNo int, line []byte)) {
	// next[i] is the next position of needle i at or after the last
	// search, -1 when there is none left; found lazily.
	var nextBuf [grepMaxNeedles]int
	next := nextBuf[:len(m.needles)]
	for i := range next {
		next[i] = -2
	}
	counted := 0 // lines before buf[counted:] are included in lineNo
	pos := 0     // always the start of a line
	for pos < len(buf) {
		var ls, le int
		if len(m.needles) > 0 {
			hit := -1
			for i := range m.needles {
				if next[i] == -2 || (next[i] >= 0 && next[i] < pos) {
					if next[i] = m.needles[i].index(buf[pos:]); next[i] >= 0 {
						next[i] += pos
					}
				}
				if next[i] >= 0 && (hit < 0 || next[i] < hit) {
					hit = next[i]
				}
			}
			if hit < 0 {
				return
			}
			ls = pos + bytes.LastIndexByte(buf[pos:hit], '\n') + 1
			le = bytes.IndexByte(buf[hit:], '\n')
			if le < 0 {
				le = len(buf)
			} else {
				le += hit
			}
		} else {
			ls = pos
			if m.run != nil {
				if ls = m.run.next(buf, pos); ls < 0 {
					return
				}
			}
			le = bytes.IndexByte(buf[ls:], '\n')
			if le < 0 {
				le = len(buf)
			} else {
				le += ls
			}
		}
		line := buf[ls:le]
		if m.complete || m.matchLine(d, line) {
			lineNo += bytes.Count(buf[counted:ls], []byte{'\n'})
			counted = ls
			emit(lineNo, line)
		}
		pos = le + 1
	}
}

// matchLine reports whether line holds a match: by the DFA when it can
// tell, else by the regexp.
func (m *grepMatcher) matchLine(d *lineDFA, line []byte) bool {
	if d != nil {
		if match, ok := d.matchLine(line); ok {
			return match
		}
	}
	return m.re.Match(line)
}

// grepLine is one matching line.
type grepLine struct {
	num  int
	text string
}

// grepFile is a file with matches. Only the first grepMaxMatches lines are
// kept (no more can be shown from one file); count covers all.
type grepFile struct {
	path  string
	mtime int64
	count int
	lines []grepLine
	// For keepReadable: the file's Stat after the search (nil: none), and
	// a link's resolved target ("" when path is no link).
	info   fs.FileInfo
	target string
}

// grepWorker is the per-goroutine state of a search: its read buffer and
// its results, merged when the walk ends.
type grepWorker struct {
	buf     []byte
	dfa     *lineDFA // built on the worker's first block
	files   []grepFile
	skipped int
	emit    func(lineNo int, line []byte) // w.emitLine, bound once

	cur      int       // index in files of the file being searched, -1 before its first match
	curEntry walkEntry // the file being searched
	cname    []byte    // a file's name as a C string, for openForGrep
}

// grepResults is a whole search before the display cap.
type grepResults struct {
	files    []grepFile // newest first
	total    int        // matching lines in all files
	skipped  int        // unreadable files and directories
	searched int
}

// keepReadable drops the files the read rules keep back (outrightReads)
// and takes their matches out of the count — a count that moved with a
// denied file's content would tell it, one grep at a time — and returns how
// many files it dropped. Only matching files are judged, so a search whose
// rules allow every path pays nothing.
func (r *grepResults) keepReadable(reads *outrightReads) int {
	if reads.ok && reads.every {
		return 0
	}
	kept, dropped := r.files[:0], 0
	for _, f := range r.files {
		if f.info == nil || !reads.allowedAt(f.path, f.target, f.info) {
			r.total -= f.count
			dropped++
			continue
		}
		kept = append(kept, f)
	}
	r.files = kept
	return dropped
}

// grepTree searches every file under root (or root itself when it is a
// file) that .gitignore allows and include matches, and returns all
// matching files sorted newest first. links decides which symbolic links
// are read (nil: none).
func grepTree(ctx context.Context, root string, m *grepMatcher, include string, links linkPolicy) (*grepResults, error) {
	opts := walkOptions{links: links}
	// The count is fixed here for walk too: GOMAXPROCS may change between
	// two calls of walkWorkers.
	opts.workers = walkWorkers(opts)
	workers := make([]grepWorker, opts.workers)
	for i := range workers {
		workers[i].emit = workers[i].emitLine
	}
	stats, err := walk(ctx, root, opts, func(w int, e walkEntry) {
		if include != "" && e.root == "" && !matchFileGlob(include, e.relPath(), e.name) {
			return
		}
		workers[w].searchFile(&e, m)
	})
	for i := range workers {
		putGrepBuffer(workers[i].buf)
	}
	if err != nil {
		return nil, err
	}
	res := &grepResults{skipped: int(stats.unreadable)}
	for i := range workers {
		res.files = append(res.files, workers[i].files...)
		res.skipped += workers[i].skipped
	}
	for _, f := range res.files {
		res.total += f.count
	}
	slices.SortFunc(res.files, func(a, b grepFile) int {
		return cmp.Or(cmp.Compare(b.mtime, a.mtime), strings.Compare(a.path, b.path))
	})
	return res, nil
}

// searchFile searches one file, reading it in chunks of whole lines into the
// worker's reusable buffer. Files with a NUL byte in their first 8 KB are
// binary and skipped. Only regular files are opened (a FIFO would block).
// A symbolic link is read only through the target the walk resolved and
// allowed, and files are opened without following a link in the last
// component, so a file swapped for a link after the walk saw it is not
// read. The modification time is looked up only for files that match.
func (w *grepWorker) searchFile(e *walkEntry, m *grepMatcher) {
	if e.typ&fs.ModeSymlink != 0 && e.target == "" {
		return // a link the walk did not resolve: it leads nowhere
	}
	// The path to stat or open the file by, when it is not opened through
	// the walk's directory: a link's resolved target, else its own path.
	path := e.target
	if path == "" && (!e.dir.ok || !e.typ.IsRegular()) {
		path = e.path()
	}
	if !e.typ.IsRegular() {
		info, err := os.Stat(path)
		if err != nil || !info.Mode().IsRegular() {
			return
		}
	}
	f, err := openForGrep(e, path, &w.cname)
	if err != nil {
		w.skipped++
		return
	}
	defer f.Close()
	if w.buf == nil {
		w.buf = getGrepBuffer()
	}
	w.cur, w.curEntry = -1, *e
	w.curEntry.dir = dirHandle{} // closed once the directory's files are visited: not to be kept
	carry, lineNo := 0, 1
	for first := true; ; first = false {
		// At most grepChunk per read, however far a long line grew the
		// buffer: a read of a megabyte is a system call long enough for
		// the runtime to hand this worker's processor to another thread,
		// and getting it back left a processor idle for a millisecond.
		want := min(len(w.buf)-carry, grepChunk)
		n, err := f.Read(w.buf[carry : carry+want])
		if err != nil && err != io.EOF {
			w.skipped++
			break
		}
		data := w.buf[:carry+n]
		// A short read of a regular file means its end: the kernel fills
		// the buffer otherwise. This saves a stat or a second read per file.
		eof := n < want
		if first && !eof && !grepIsRegular(f) {
			// Something else was put in its place since the walk listed
			// it (a FIFO fed for ever, a device): not searched.
			w.skipped++
			break
		}
		// When a needle search decides, a file read whole in one go is
		// tested for binary content only if it matches (below): most files
		// do not, and the test is a pass over up to 8 KB of each, as long
		// as the search. Without a needle the search costs far more than
		// the test, more still over binary bytes, so the test comes first;
		// so it does for a longer file, whose first chunk is gone when a
		// later one matches.
		probeLater := first && eof && m.needles != nil
		if first && !probeLater && binaryProbe(data) {
			break
		}
		block := data
		if !eof {
			// Only the bytes just read can hold a line end: the carried
			// ones are the unfinished line after the last one. (Looking
			// through all of data made a megabyte-long line cost a
			// quadratic number of byte compares: a twentieth of a search
			// of the Go tree, which has two.)
			k := bytes.LastIndexByte(data[carry:], '\n')
			if k >= 0 {
				k += carry
			}
			if k < 0 { // no line ends yet: read on, growing the buffer when full
				if len(data) == len(w.buf) {
					if 2*len(w.buf) > grepMaxLine {
						// A line this long is not text to show: the rest of
						// the file is left out, so its size cannot make the
						// search take all memory.
						w.skipped++
						break
					}
					w.buf = append(w.buf, make([]byte, len(w.buf))...)
				}
				carry = len(data)
				continue
			}
			block = data[:k+1]
		}
		if w.dfa == nil && m.prog != nil {
			w.dfa = newLineDFA(m.prog)
		}
		m.searchBlock(block, lineNo, w.dfa, w.emit)
		if probeLater && w.cur >= 0 && binaryProbe(data) {
			// Binary after all: the matches just recorded are not kept.
			w.files, w.cur = w.files[:w.cur], -1
		}
		if eof {
			break
		}
		lineNo += bytes.Count(block, []byte{'\n'})
		carry = copy(w.buf, data[len(block):])
	}
	if w.cur >= 0 {
		f := &w.files[w.cur]
		if info, err := os.Stat(cmp.Or(e.target, f.path)); err == nil {
			f.mtime = info.ModTime().UnixNano()
			f.info = info
		}
		f.target = e.target
	}
}

// grepMaxLine is the longest line grep reads whole (a variable for tests):
// a file with a longer one is searched up to it.
var grepMaxLine = 64 << 20

// grepBuffers keeps workers' read buffers from one search to the next. A
// search that allocated two fresh 256 KB buffers, and regrew one to 2 MB
// for a file with a megabyte-long line (the Go tree has two), made the
// collector run twice during every search on a small heap, stopping the
// workers each time. A sync.Pool lets the collector drop buffers nobody
// used since the last cycle or two, so an idle host does not keep them.
var grepBuffers sync.Pool

func getGrepBuffer() []byte {
	if b, ok := grepBuffers.Get().(*[]byte); ok {
		return *b
	}
	return make([]byte, grepChunk)
}

// putGrepBuffer keeps buf for another search unless a very long line grew
// it past grepKeptBuffer.
func putGrepBuffer(buf []byte) {
	if buf != nil && len(buf) <= grepKeptBuffer {
		grepBuffers.Put(&buf)
	}
}

// binaryProbe says a file whose first bytes are data is binary: a NUL in
// its first grepBinaryProbe bytes.
func binaryProbe(data []byte) bool {
	return bytes.IndexByte(data[:min(len(data), grepBinaryProbe)], 0) >= 0
}

// emit records a matching line of the file being searched.
func (w *grepWorker) emitLine(n int, line []byte) {
	if w.cur < 0 {
		w.files = append(w.files, grepFile{path: w.curEntry.path()})
		w.cur = len(w.files) - 1
	}
	f := &w.files[w.cur]
	f.count++
	if len(f.lines) < grepMaxMatches {
		f.lines = append(f.lines, grepLine{num: n, text: displayLine(line)})
	}
}

// displayLine copies a matched line for output, without its line ending,
// cut to grepMaxLineLength characters with "..." when longer.
func displayLine(line []byte) string {
	line = bytes.TrimSuffix(line, []byte{'\r'})
	if len(line) <= grepMaxLineLength {
		return string(line)
	}
	cut, chars := 0, 0
	for cut < len(line) && chars < grepMaxLineLength {
		_, size := utf8.DecodeRune(line[cut:])
		cut += size
		chars++
	}
	if cut == len(line) {
		return string(line)
	}
	return string(line[:cut]) + "..."
}

// result renders the search the way OpenCode's grep tool does.
func (r *grepResults) result(pattern string) runtime.Result {
	if r.total == 0 {
		return runtime.Result{
			Title:    pattern,
			Output:   "No files found",
			Metadata: map[string]any{"matches": 0, "truncated": false, "uniqueFiles": 0},
		}
	}
	truncated := r.total > grepMaxMatches
	var b strings.Builder
	fmt.Fprintf(&b, "Found %d matches", r.total)
	if truncated {
		fmt.Fprintf(&b, " (showing first %d)", grepMaxMatches)
	}
	b.WriteByte('\n')
	shown := 0
	for i, f := range r.files {
		if shown == grepMaxMatches {
			break
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%s:\n", f.path)
		for _, l := range f.lines {
			if shown == grepMaxMatches {
				break
			}
			fmt.Fprintf(&b, "  Line %d: %s\n", l.num, l.text)
			shown++
		}
	}
	if truncated {
		fmt.Fprintf(&b, "\n(Results truncated: showing %d of %d matches (%d hidden). Consider using a more specific path or pattern.)\n",
			grepMaxMatches, r.total, r.total-grepMaxMatches)
	}
	if r.skipped > 0 {
		b.WriteString("\n(Some paths were inaccessible and skipped)\n")
	}
	return runtime.Result{
		Title:    pattern,
		Output:   strings.TrimSuffix(b.String(), "\n"),
		Metadata: map[string]any{"matches": r.total, "truncated": truncated, "uniqueFiles": len(r.files)},
	}
}
