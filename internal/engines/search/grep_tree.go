package search

import (
	"bytes"
	"cmp"
	"context"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// Grep's limits.
const (
	maxLineLength   = 2000 // a longer matching line is cut with "..."
	grepBinaryProbe = 8 << 10
	grepChunk       = 64 << 10 // read size and first buffer; larger files are searched chunk by chunk
	grepKeptBuffer  = 8 << 20  // largest read buffer kept for the next search
)

// Line is one matching line: its number, counted from 1, and its text
// without the line ending, cut to maxLineLength characters with "..."
// when longer.
type Line struct {
	Num  int
	Text string
}

// File is a file with matches. Only its first GrepOptions.MaxLines
// matching lines are kept; Count covers all.
type File struct {
	Path    string
	ModTime int64 // in Unix nanoseconds; 0 when the file could not be stat'ed
	Count   int
	Lines   []Line
	// What a caller deciding whether the file may be shown judges: the
	// file's Stat after the search (nil: none), and a link's resolved
	// target ("" when Path is no link).
	Info   fs.FileInfo
	Target string
}

// Results is a whole search, before any display cap.
type Results struct {
	Files   []File // newest first, then by path
	Total   int    // matching lines in all files
	Skipped int    // files and directories that could not be read
}

// GrepOptions tunes Grep. The zero value searches every file the ignore
// files allow, reads no symbolic link and keeps every matching line.
type GrepOptions struct {
	// Include, when set, is a MatchGlob pattern a file must match to be
	// searched (not applied when the root itself is a file).
	Include string
	// Links decides which symbolic links are read; nil reads none.
	Links LinkPolicy
	// MaxLines is how many matching lines are kept per file (a caller
	// that shows at most that many need not hold more); 0 keeps all.
	MaxLines int
}

// grepWorker is the per-goroutine state of a search: its read buffer and
// its results, merged when the walk ends.
type grepWorker struct {
	buf      []byte
	dfa      *lineDFA // built on the worker's first block
	files    []File
	skipped  int
	maxLines int                           // GrepOptions.MaxLines
	emit     func(lineNo int, line []byte) // w.emitLine, bound once

	cur      int    // index in files of the file being searched, -1 before its first match
	curEntry Entry  // the file being searched
	cname    []byte // a file's name as a C string, for openForGrep
}

// Grep searches every file under root (or root itself when it is a file)
// that the ignore files allow and opts.Include matches, with m, and
// returns every matching file sorted newest first. Files are searched on
// the walk's workers as they are found; binary files (a NUL byte in the
// first 8 KB) and anything but regular files are left out. The error is
// ctx's when cancelled, or root's when it cannot be read.
func Grep(ctx context.Context, root string, m *Matcher, opts GrepOptions) (*Results, error) {
	wopts := Options{Links: opts.Links}
	// The count is fixed here for walk too: GOMAXPROCS may change between
	// two calls of walkWorkers.
	wopts.Workers = walkWorkers(wopts)
	workers := make([]grepWorker, wopts.Workers)
	for i := range workers {
		workers[i].emit = workers[i].emitLine
		workers[i].maxLines = opts.MaxLines
	}
	include := opts.Include
	stats, err := walk(ctx, root, wopts, func(w int, e Entry) {
		if include != "" && e.root == "" && !MatchGlob(include, e.RelPath(), e.name) {
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
	res := &Results{Skipped: int(stats.unreadable)}
	for i := range workers {
		res.Files = append(res.Files, workers[i].files...)
		res.Skipped += workers[i].skipped
	}
	for _, f := range res.Files {
		res.Total += f.Count
	}
	slices.SortFunc(res.Files, func(a, b File) int {
		return cmp.Or(cmp.Compare(b.ModTime, a.ModTime), strings.Compare(a.Path, b.Path))
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
func (w *grepWorker) searchFile(e *Entry, m *Matcher) {
	if e.typ&fs.ModeSymlink != 0 && e.target == "" {
		return // a link the walk did not resolve: it leads nowhere
	}
	// The path to stat or open the file by, when it is not opened through
	// the walk's directory: a link's resolved target, else its own path.
	path := e.target
	if path == "" && (!e.dir.ok || !e.typ.IsRegular()) {
		path = e.Path()
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
		if info, err := os.Stat(cmp.Or(e.target, f.Path)); err == nil {
			f.ModTime = info.ModTime().UnixNano()
			f.Info = info
		}
		f.Target = e.target
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
		w.files = append(w.files, File{Path: w.curEntry.Path()})
		w.cur = len(w.files) - 1
	}
	f := &w.files[w.cur]
	f.Count++
	if w.maxLines <= 0 || len(f.Lines) < w.maxLines {
		f.Lines = append(f.Lines, Line{Num: n, Text: displayLine(line)})
	}
}

// displayLine copies a matched line for output, without its line ending,
// cut to maxLineLength characters with "..." when longer.
func displayLine(line []byte) string {
	line = bytes.TrimSuffix(line, []byte{'\r'})
	if len(line) <= maxLineLength {
		return string(line)
	}
	cut, chars := 0, 0
	for cut < len(line) && chars < maxLineLength {
		_, size := utf8.DecodeRune(line[cut:])
		cut += size
		chars++
	}
	if cut == len(line) {
		return string(line)
	}
	return string(line[:cut]) + "..."
}
