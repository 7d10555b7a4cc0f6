package builtins

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/toolhost/toolhost/internal/content/textfill"
	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/permission"
)

// The read tool's limits. The description is rendered from these, so what
// the model is told and what the code does cannot drift.
const (
	readDefaultLimit  = 2000      // lines shown when no limit is given
	readMaxLineLength = 2000      // characters of one line before it is cut
	readMaxBytes      = 50 * 1024 // output cap in bytes
	readSuggestions   = 3         // "did you mean" entries for a missing file
	readBinarySample  = 4096      // bytes examined to tell binary from text
	readMaxAttachment = 20 << 20  // largest image or PDF returned as an attachment
)

// readToolName is the read tool's id; the write tools name it when they
// refuse a file the session has not read.
const readToolName = "read"

// permissionRead is the permission the read tool asks, with the path
// relative to the project (absolute when outside) as pattern.
const permissionRead = "read"

var readLineSuffix = fmt.Sprintf("... (line truncated to %d chars)", readMaxLineLength)

//go:embed read.txt
var readTemplate string

var readDescription = sync.OnceValue(func() string {
	return renderDescription("read", readTemplate, map[string]any{
		"DefaultLimit":  readDefaultLimit,
		"MaxLineLength": readMaxLineLength,
		"MaxKB":         readMaxBytes / 1024,
	})
})

// renderDescription fills a description's {{.Name}} placeholders with the
// limits the code enforces (internal/content/textfill: not text/template, which
// costs the binary 5 MB). It panics on a placeholder without a value: that
// is a programming error caught by any test that loads the package.
func renderDescription(name string, text string, values map[string]any) string {
	return textfill.MustFill(name+".txt", text, values)
}

// described gives runtime.DefineDynamic a description rendered on the
// first Init that asks for it, not at package init: every process links
// the built-ins and most start none of them (issue 32).
func described(description func() string) func(context.Context, runtime.InitContext) (string, error) {
	return func(context.Context, runtime.InitContext) (string, error) { return description(), nil }
}

// readParams are the read tool's arguments.
type readParams struct {
	FilePath string `json:"filePath" jsonschema:"description=The absolute path to the file or directory to read (a relative path is resolved against the working directory)"`
	Offset   int    `json:"offset,omitempty" jsonschema:"description=The line number to start reading from (1-indexed; default 1),minimum=0"`
	Limit    int    `json:"limit,omitempty" jsonschema:"description=The maximum number of lines to read (defaults to 2000),minimum=0"`
}

// Read returns the read tool: a page of a text file with line numbers, a
// directory's entries, or an image or PDF as an attachment for multimodal
// models. Which one is decided by the file's content, not its name
// (sniff.go): PNG, JPEG, GIF, WebP and PDF are attached, other images
// (BMP, TIFF, AVIF, HEIC) and binary files are refused, and text is read
// as text whatever its extension. A missing file's error suggests up to
// three similar names from its directory. Each successful read of a file is
// stamped in the session (filetime.go) so write and edit can check that the
// model saw the current content. A file read brings along, once per
// session, the instruction files (AGENTS.md, CLAUDE.md) of the directories
// between it and the project root (instructions.go), listed in metadata
// "loaded".
//
// Files are streamed, never loaded whole: reading the last page of a 100 MB
// file allocates about as much as reading the first (see
// BenchmarkReadLastPage100MB).
func Read() runtime.Tool {
	return runtime.Declare(runtime.DefineDynamic(readToolName, described(readDescription), runRead), readTraits)
}

// readTraits: asks "read" for the path itself; changes nothing; one page
// of one file, quick.
var readTraits = runtime.Traits{ChecksOwnPermission: true, Hints: &runtime.Hints{ReadOnly: true, Idempotent: true}}

func runRead(ctx context.Context, p readParams, tc *runtime.Context) (runtime.Result, error) {
	if p.FilePath == "" {
		return runtime.Result{}, errors.New("filePath is required")
	}
	if p.Offset < 0 {
		return runtime.Result{}, errors.New("offset must be greater than or equal to 1")
	}
	if p.Limit < 0 {
		return runtime.Result{}, errors.New("limit must be greater than or equal to 1")
	}
	offset, limit := max(p.Offset, 1), p.Limit
	if limit == 0 {
		limit = readDefaultLimit
	}
	path := tc.ResolvePath(p.FilePath)
	info, statErr := os.Stat(path)
	if statErr != nil && !errors.Is(statErr, fs.ErrNotExist) {
		return runtime.Result{}, fmt.Errorf("read %s: %w", path, statErr)
	}
	isDir := statErr == nil && info.IsDir()
	if err := tc.CheckExternalDirectory(ctx, path, isDir); err != nil {
		return runtime.Result{}, err
	}
	rel := displayPath(tc, path)
	// The path as named, where its links lead, and the file's other
	// names if it has hard links: the bytes are those of every name.
	named, unresolved := hardLinkPatterns(tc, path, info, filePatterns(tc, path), nil)
	if err := tc.Ask(ctx, permission.Request{
		Permission: permissionRead,
		Patterns:   named,
		Always:     alwaysForEach(slices.DeleteFunc(slices.Clone(named), func(p string) bool { _, ok := unresolved[p]; return ok }), isDir),
		Unresolved: unresolved,
		Metadata:   map[string]any{"filepath": path},
	}); err != nil {
		return runtime.Result{}, err
	}
	if statErr != nil {
		return runtime.Result{}, missingFileError(path)
	}
	if isDir {
		return readDirectory(path, rel, offset, limit)
	}
	if !info.Mode().IsRegular() {
		// Opening a FIFO waits for a writer, and a device may never end:
		// either would hold the call past any limit (an open cannot be
		// cancelled).
		return runtime.Result{}, fmt.Errorf("Cannot read %s: it is a %s, not a regular file; reading it could wait for ever. Read the file it is fed from instead", path, fileKind(info.Mode()))
	}

	f, err := openChecked(tc, path)
	if err != nil {
		return runtime.Result{}, fmt.Errorf("read %s: %w", path, err)
	}
	defer f.Close()
	if !openedIs(f, info) {
		// Replaced since it was judged (a hard link to another file put
		// in its place, say): these bytes were never asked about.
		return runtime.Result{}, fmt.Errorf("read %s: the file was replaced while it was being checked; read it again", path)
	}
	// One buffer for the sample and the page: the sample is not read
	// twice (a pipe or device cannot seek back). The buffers are reused
	// across calls: nothing read keeps a reference to one (readPage copies
	// the page's lines out).
	br := readBuffers.Get().(*bufio.Reader)
	br.Reset(f)
	defer func() { br.Reset(nil); readBuffers.Put(br) }()
	head, err := br.Peek(readBinarySample)
	if err != nil && !errors.Is(err, io.EOF) {
		return runtime.Result{}, fmt.Errorf("read %s: %w", path, err)
	}
	ct, text := sniff(head)
	switch ct.action {
	case sniffAttach:
		res, err := readAttachment(ctx, tc, br, path, rel, ct, info.Size())
		if err != nil {
			return res, err
		}
		return withInstructions(ctx, tc, path, res)
	case sniffRefuse:
		return runtime.Result{}, fmt.Errorf("Cannot read binary file: %s (content: %s). Only PNG, JPEG, GIF and WebP images and PDFs can be read as attachments; convert it to PNG first, for example: magick %s out.png", path, ct.name, filepath.Base(path))
	}
	if !text && looksBinary(head) {
		return runtime.Result{}, fmt.Errorf("Cannot read binary file: %s", path)
	}
	pg, err := readPage(br, offset, limit)
	if err != nil {
		return runtime.Result{}, fmt.Errorf("read %s: %w", path, err)
	}
	if pg.count < offset && !(pg.count == 0 && offset == 1) {
		return runtime.Result{}, fmt.Errorf("Offset %d is out of range for this file (%d lines)", offset, pg.count)
	}

	var out strings.Builder
	out.Grow(pg.bytes + 8*pg.lines() + len(path) + 128)
	out.WriteString("<path>")
	out.WriteString(path)
	out.WriteString("</path>\n<type>file</type>\n<content>\n")
	var num []byte
	for i := range pg.lines() {
		if i > 0 {
			out.WriteByte('\n')
		}
		num = strconv.AppendInt(num[:0], int64(offset+i), 10)
		out.Write(num)
		out.WriteString(": ")
		out.Write(pg.line(i))
	}
	last := offset + pg.lines() - 1
	switch {
	case pg.cut:
		fmt.Fprintf(&out, "\n\n(Output capped at %d KB. Showing lines %d-%d. Use offset=%d to continue.)", readMaxBytes/1024, offset, last, last+1)
	case pg.more:
		fmt.Fprintf(&out, "\n\n(Showing lines %d-%d of %d. Use offset=%d to continue.)", offset, last, pg.count, last+1)
	default:
		fmt.Fprintf(&out, "\n\n(End of file - total %d lines)", pg.count)
	}
	out.WriteString("\n</content>")

	if err := recordReadOf(ctx, tc, path, info); err != nil {
		return runtime.Result{}, err
	}
	if offset == 1 && !pg.more && !pg.cut {
		// The model has now seen the whole file: if it is an instruction
		// file, reads below it need not bring it again.
		if err := claimIfInstruction(ctx, tc, path); err != nil {
			return runtime.Result{}, err
		}
	}
	return withInstructions(ctx, tc, path, runtime.Result{
		Title:  rel,
		Output: out.String(),
		Metadata: map[string]any{
			"preview":   pg.preview(20),
			"truncated": pg.more || pg.cut,
			"filepath":  path,
		},
	})
}

// lines is how many lines the page shows.
func (pg *page) lines() int { return len(pg.ends) }

// line is the i-th line shown (0-based), valid as long as pg.
func (pg *page) line(i int) []byte {
	start := 0
	if i > 0 {
		start = pg.ends[i-1]
	}
	return pg.data[start:pg.ends[i]]
}

// preview is the first n lines shown, joined by newlines.
func (pg *page) preview(n int) string {
	n = min(n, pg.lines())
	if n == 0 {
		return ""
	}
	var b strings.Builder
	b.Grow(pg.ends[n-1] + n)
	for i := range n {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.Write(pg.line(i))
	}
	return b.String()
}

// fileKind names the type of a file that is not regular.
func fileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeCharDevice != 0:
		return "character device"
	case m&fs.ModeDevice != 0:
		return "device"
	}
	return "special file"
}

// readBuffers are read's file buffers, 64 KiB each.
var readBuffers = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 64<<10) }}

// page is what readPage found.
type page struct {
	data  []byte // the lines shown, long ones cut, one after the other
	ends  []int  // where each line ends in data
	count int    // lines in the file (when cut, only those read so far)
	more  bool   // lines remain after the page
	cut   bool   // the byte cap ended the page early
	bytes int    // bytes of the lines shown
}

// readPage streams r and returns lines offset..offset+limit-1 (1-based),
// the total line count, and whether the page ended early. Lines end at
// "\n" (a "\r" before it is dropped); a last line without one counts.
// Memory is bounded by the page, not the file: lines before the page are
// skipped by counting newlines in the read buffer, long lines are cut while
// read, and lines after the page are only counted.
func readPage(r io.Reader, offset, limit int) (pg page, err error) {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, 64<<10)
	}
	if b, _ := br.Peek(len(utf8BOM)); string(b) == utf8BOM {
		br.Discard(len(utf8BOM))
	}
	n, err := skipLines(br, offset-1)
	pg.count = n
	if err != nil {
		return pg, err
	}
	if n < offset-1 {
		return pg, nil // the file ended before the page
	}

	// The page's lines are gathered in one buffer, sized by what is
	// already read: two allocations, not one per line.
	buffered, _ := br.Peek(br.Buffered())
	arena := make([]byte, 0, min(len(buffered)+1, readMaxBytes+readMaxLineLength*utf8.UTFMax))
	ends := make([]int, 0, min(limit, bytes.Count(buffered, []byte{'\n'})+1))
	defer func() { pg.data, pg.ends = arena, ends }()
	bytesOut := 0
	maxRaw := readMaxLineLength * utf8.UTFMax
	for {
		line, err := readLineCapped(br, maxRaw)
		if err != nil {
			return pg, err
		}
		if line == nil {
			return pg, nil // end of file
		}
		if len(ends) >= limit {
			pg.more = true
			pg.count++
			rest, err := countLines(br)
			pg.count += rest
			return pg, err
		}
		pg.count++
		line = bytes.TrimSuffix(line, []byte("\r"))
		var suffix string
		// A line of at most readMaxLineLength bytes has at most as many
		// characters: only longer ones are counted.
		if len(line) > readMaxLineLength && utf8.RuneCount(line) > readMaxLineLength {
			line, suffix = truncateRunesBytes(line, readMaxLineLength), readLineSuffix
		}
		size := len(line) + len(suffix)
		if len(ends) > 0 {
			size++
		}
		if bytesOut+size > readMaxBytes {
			pg.cut, pg.more = true, true
			return pg, nil
		}
		arena = append(append(arena, line...), suffix...)
		ends = append(ends, len(arena))
		bytesOut += size
		pg.bytes = bytesOut
	}
}

// truncateRunesBytes returns the first n runes of b.
func truncateRunesBytes(b []byte, n int) []byte {
	i := 0
	for k := 0; k < n && i < len(b); k++ {
		_, size := utf8.DecodeRune(b[i:])
		i += size
	}
	return b[:i]
}

// skipLines consumes n lines and returns how many there were (fewer at end
// of file). It counts newlines a buffer at a time, so skipping most of a
// large file costs one bytes.Count per 64 KB rather than a call per line.
func skipLines(br *bufio.Reader, n int) (int, error) {
	skipped := 0
	partial := false // bytes consumed since the last newline
	for skipped < n {
		if _, err := br.Peek(1); err != nil {
			if errors.Is(err, io.EOF) {
				if partial {
					skipped++
				}
				return skipped, nil
			}
			return skipped, err
		}
		buf, _ := br.Peek(br.Buffered())
		if c := bytes.Count(buf, []byte{'\n'}); skipped+c < n {
			skipped += c
			partial = buf[len(buf)-1] != '\n'
			br.Discard(len(buf))
			continue
		}
		pos := 0
		for skipped < n {
			i := bytes.IndexByte(buf[pos:], '\n')
			pos += i + 1
			skipped++
		}
		br.Discard(pos)
	}
	return skipped, nil
}

// countLines counts the lines left in br, which is at the start of a line.
func countLines(br *bufio.Reader) (int, error) {
	n := 0
	last := byte('\n') // nothing read yet: no unfinished line
	buf := make([]byte, 64<<10)
	for {
		k, err := br.Read(buf)
		if k > 0 {
			n += bytes.Count(buf[:k], []byte{'\n'})
			last = buf[k-1]
		}
		if errors.Is(err, io.EOF) {
			if last != '\n' {
				n++ // a last line without a newline
			}
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

// readLineCapped reads one line without its "\n", keeping at most maxRaw
// bytes of it and discarding the rest, so a huge line costs no memory. It
// returns nil at end of file, and leaves br at the start of the next line.
func readLineCapped(br *bufio.Reader, maxRaw int) ([]byte, error) {
	// The common case, a whole short line in the buffer, returns the
	// buffer's own bytes: valid until the next read, which is all the
	// caller needs, and no copy per line.
	chunk, err := br.ReadSlice('\n')
	switch {
	case err == nil && len(chunk)-1 <= maxRaw:
		return chunk[:len(chunk)-1], nil
	case err == nil: // a line longer than maxRaw, ended
		return append([]byte(nil), chunk[:maxRaw]...), nil
	case errors.Is(err, io.EOF): // the last line, without "\n"
		if len(chunk) == 0 {
			return nil, nil
		}
		return append([]byte(nil), chunk[:min(maxRaw, len(chunk))]...), nil
	case errors.Is(err, bufio.ErrBufferFull): // longer than the buffer
		return readLineCappedRest(br, maxRaw, append([]byte(nil), chunk[:min(maxRaw, len(chunk))]...))
	default:
		return nil, err
	}
}

// readLineCappedRest reads the rest of a line begun in kept.
func readLineCappedRest(br *bufio.Reader, maxRaw int, kept []byte) ([]byte, error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if err == nil {
			chunk = chunk[:len(chunk)-1]
		}
		if room := maxRaw - len(kept); room > 0 {
			kept = append(kept, chunk[:min(room, len(chunk))]...)
		}
		switch {
		case err == nil:
			return kept, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			return kept, nil
		default:
			return nil, err
		}
	}
}

// readAttachment returns the content of r, an image or PDF sniffed as ct,
// as an attachment. The media type is the content's, whatever the name.
func readAttachment(ctx context.Context, tc *runtime.Context, r io.Reader, path, rel string, ct contentType, size int64) (runtime.Result, error) {
	if size > readMaxAttachment {
		return runtime.Result{}, fmt.Errorf("%s is %d MB, over the %d MB limit for images and PDFs; ask the user for a smaller file", path, size>>20, readMaxAttachment>>20)
	}
	b, err := io.ReadAll(io.LimitReader(r, readMaxAttachment+1))
	if err != nil {
		return runtime.Result{}, fmt.Errorf("read %s: %w", path, err)
	}
	if len(b) > readMaxAttachment {
		return runtime.Result{}, fmt.Errorf("%s grew over the %d MB limit for images and PDFs while it was read; ask the user for a smaller file", path, readMaxAttachment>>20)
	}
	if err := recordRead(ctx, tc, path); err != nil {
		return runtime.Result{}, err
	}
	mt := ct.mime
	kind := "Image"
	if mt == "application/pdf" {
		kind = "PDF"
	}
	msg := kind + " read successfully"
	return runtime.Result{
		Title:    rel,
		Output:   msg,
		Metadata: map[string]any{"preview": msg, "truncated": false, "filepath": path},
		Attachments: []runtime.Attachment{{
			MIME:     mt,
			URL:      "data:" + mt + ";base64," + base64.StdEncoding.EncodeToString(b),
			Filename: filepath.Base(path),
		}},
	}, nil
}

// readDirectory lists a directory's entries, directories marked with "/",
// paged by offset and limit like a file's lines.
func readDirectory(path, rel string, offset, limit int) (runtime.Result, error) {
	entries, err := os.ReadDir(path)
	if err != nil {
		return runtime.Result{}, fmt.Errorf("list %s: %w", path, err)
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() {
			name += "/"
		} else if e.Type()&fs.ModeSymlink != 0 {
			if st, err := os.Stat(filepath.Join(path, name)); err == nil && st.IsDir() {
				name += "/"
			}
		}
		names = append(names, name)
	}
	slices.Sort(names)
	start := min(offset-1, len(names))
	shown := names[start:min(start+limit, len(names))]
	truncated := start+len(shown) < len(names)
	var out strings.Builder
	fmt.Fprintf(&out, "<path>%s</path>\n<type>directory</type>\n<entries>\n%s\n", path, strings.Join(shown, "\n"))
	if truncated {
		fmt.Fprintf(&out, "\n(Showing %d of %d entries. Use 'offset' parameter to read beyond entry %d)\n", len(shown), len(names), offset+len(shown))
	} else {
		fmt.Fprintf(&out, "\n(%d entries)\n", len(names))
	}
	out.WriteString("</entries>")
	return runtime.Result{
		Title:  rel,
		Output: out.String(),
		Metadata: map[string]any{
			"preview":   strings.Join(shown[:min(20, len(shown))], "\n"),
			"truncated": truncated,
			"filepath":  path,
		},
	}, nil
}

// missingFileError says path does not exist and suggests up to three
// entries of its directory: first names that contain the wanted name or are
// contained in it (case-insensitive, as OpenCode does), then names within a
// small edit distance, which catches typos such as "mian.go".
func missingFileError(path string) error {
	dir, base := filepath.Dir(path), strings.ToLower(filepath.Base(path))
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("File not found: %s", path)
	}
	var subs, close []string
	for _, e := range entries {
		name := strings.ToLower(e.Name())
		switch {
		case strings.Contains(name, base) || strings.Contains(base, name):
			subs = append(subs, filepath.Join(dir, e.Name()))
		case levenshtein(name, base) <= max(2, utf8.RuneCountInString(base)/4):
			close = append(close, filepath.Join(dir, e.Name()))
		}
	}
	suggest := append(subs, close...)
	if len(suggest) == 0 {
		return fmt.Errorf("File not found: %s", path)
	}
	suggest = suggest[:min(readSuggestions, len(suggest))]
	return fmt.Errorf("File not found: %s\n\nDid you mean one of these?\n%s", path, strings.Join(suggest, "\n"))
}
