package runtime

import (
	"bytes"
	"fmt"
	"os"
	"strings"
)

// spoolMargin is how many bytes past MaxBytes a Spool keeps in memory: one
// more than MaxBytes is what tells a line that would cross the limit from
// one that ends on it; the rest spares a copy when the limit is hit mid-write.
const spoolMargin = 4096

// Spool takes a tool's output as it is produced and keeps in memory only
// what Truncate would show (the head, up to MaxBytes plus a small margin).
// Once the output outgrows MaxLines or MaxBytes, everything — what was kept
// and everything after — goes to a new file in Dir as it arrives, so memory
// stays bounded however much a command prints. Result then renders exactly
// what Truncate(whole output, KeepHead, …) would have, with the same marker
// and hint, naming that file.
//
// A tool that spools sets Metadata["truncated"] (see Registry.Call), so the
// wrapper leaves its output alone. A Spool is not safe for concurrent use.
type Spool struct {
	t        *Truncation
	maxLines int
	maxBytes int

	head     []byte // the first maxBytes+spoolMargin bytes
	total    int
	newlines int
	file     *os.File
	path     string
	err      error // the first error writing the file
}

// NewSpool returns an empty spool with t's limits and directory.
func (t *Truncation) NewSpool() *Spool {
	maxLines, maxBytes := t.limits()
	return &Spool{t: t, maxLines: maxLines, maxBytes: maxBytes}
}

// Write keeps what fits in memory and, past the limits, appends p to the
// saved file. It never fails: a file error is reported by Result, and the
// head is kept regardless.
func (s *Spool) Write(p []byte) (int, error) {
	s.total += len(p)
	s.newlines += bytes.Count(p, []byte{'\n'})
	if s.file == nil && s.err == nil && s.over() {
		// Until now everything fit in head; it starts the file.
		if s.file, s.err = s.t.create(); s.err == nil {
			s.path = s.file.Name()
			s.write(s.head)
		}
	}
	if s.file != nil {
		s.write(p)
	}
	if room := s.maxBytes + spoolMargin - len(s.head); room > 0 {
		s.head = append(s.head, p[:min(len(p), room)]...)
	}
	return len(p), nil
}

func (s *Spool) write(p []byte) {
	if _, err := s.file.Write(p); err != nil {
		s.err = fmt.Errorf("save truncated output: %w", err)
		s.file.Close()
		s.file = nil
	}
}

// over reports whether the output so far exceeds a limit.
func (s *Spool) over() bool { return s.total > s.maxBytes || s.newlines+1 > s.maxLines }

// Len is the number of bytes written so far.
func (s *Spool) Len() int { return s.total }

// Result closes the saved file and returns what the model sees: the whole
// output when it is within the limits, else the head, the marker and the
// hint naming the saved file. When the file could not be written, the hint
// says so instead of naming it, and err is that failure; the content is
// still usable.
func (s *Spool) Result(hint Hint) (res TruncateResult, err error) {
	if !s.over() {
		return TruncateResult{Content: string(s.head)}, nil
	}
	if s.file != nil {
		if cerr := s.file.Close(); cerr != nil && s.err == nil {
			s.err = fmt.Errorf("save truncated output: %w", cerr)
		}
		s.file = nil
	}
	// Every line kept lies within head: a line head cuts short would
	// cross maxBytes in full too, so keep stops at it either way.
	kept, size, hitBytes := keep(strings.Split(string(s.head), "\n"), KeepHead, s.maxLines, s.maxBytes)
	removed, unit := s.newlines+1-len(kept), "lines"
	if hitBytes {
		removed, unit = s.total-size, "bytes"
	}
	if s.err != nil {
		hint := fmt.Sprintf("The tool call succeeded but the output was truncated, and the full output could not be saved: %v", s.err)
		return TruncateResult{Content: renderHint(kept, removed, unit, KeepHead, hint), Truncated: true}, s.err
	}
	return TruncateResult{Content: render(kept, removed, unit, s.path, KeepHead, hint), Truncated: true, Path: s.path}, nil
}
