package runtime

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// Truncation keeps what the model sees of one output within limits, and
// saves the whole output to a file the model can search or page through.
type Truncation struct {
	MaxLines int
	MaxBytes int
	// Dir receives full outputs (<data dir>/tool-output).
	Dir string
	// Retention is how long saved outputs are kept. Default 7 days.
	Retention time.Duration
	// Now is the clock; tests replace it.
	Now func() time.Time

	cleanMu sync.Mutex
}

// TruncateResult is the outcome of Truncate.
type TruncateResult struct {
	Content   string
	Truncated bool
	Path      string // the saved full output, when Truncated
}

// Truncation directions.
const (
	KeepHead = "head"
	KeepTail = "tail"
)

// cleanupInterval bounds how often old outputs are swept, across processes
// (a marker file's mtime records the last sweep).
const cleanupInterval = time.Hour

// Truncate cuts text at a line boundary when it exceeds MaxLines lines or
// MaxBytes bytes, keeping the head (direction KeepHead) or the tail. The full
// text is saved under Dir and the kept part is followed (head) or preceded
// (tail) by a marker "...N lines truncated..." ("bytes" when the byte limit
// was hit) and a hint naming the file and the tools to open it with, as
// hint's front end names them; when the agent may delegate, the hint
// suggests that instead.
func (t *Truncation) Truncate(text, direction string, hint Hint) (TruncateResult, error) {
	maxLines, maxBytes := t.limits()
	lines := strings.Split(text, "\n")
	if len(lines) <= maxLines && len(text) <= maxBytes {
		return TruncateResult{Content: text}, nil
	}
	kept, size, hitBytes := keep(lines, direction, maxLines, maxBytes)
	removed, unit := len(lines)-len(kept), "lines"
	if hitBytes {
		removed, unit = len(text)-size, "bytes"
	}
	path, err := t.save(text)
	if err != nil {
		return TruncateResult{}, err
	}
	return TruncateResult{Content: render(kept, removed, unit, path, direction, hint), Truncated: true, Path: path}, nil
}

// limits returns the configured limits or the defaults.
func (t *Truncation) limits() (maxLines, maxBytes int) {
	maxLines, maxBytes = t.MaxLines, t.MaxBytes
	if maxLines <= 0 {
		maxLines = 2000
	}
	if maxBytes <= 0 {
		maxBytes = 50 * 1024
	}
	return maxLines, maxBytes
}

// keep walks lines from the kept end, stopping at either limit, and returns
// the kept lines in order, their joined size, and whether the byte limit
// stopped the walk.
func keep(lines []string, direction string, maxLines, maxBytes int) (kept []string, size int, hitBytes bool) {
	idx := func(i int) int { return i }
	if direction == KeepTail {
		idx = func(i int) int { return len(lines) - 1 - i }
	}
	for i := 0; i < len(lines) && len(kept) < maxLines; i++ {
		line := lines[idx(i)]
		add := len(line)
		if len(kept) > 0 {
			add++ // the newline joining it to the kept part
		}
		if size+add > maxBytes {
			hitBytes = true
			break
		}
		kept = append(kept, line)
		size += add
	}
	if direction == KeepTail {
		slices.Reverse(kept)
	}
	return kept, size, hitBytes
}

// render is the truncated content: the kept part, the marker and the hint
// naming the saved file.
func render(kept []string, removed int, unit, path, direction string, hint Hint) string {
	return renderHint(kept, removed, unit, direction, savedHint(path, hint))
}

// savedHint tells the model how to get at the saved output. toolhost's
// own front ends keep OpenCode's wording; a front end that names tools
// otherwise (an MCP client's prefix) gets those names, with the exact
// call to make, since the client's own tools of the same name may not
// reach toolhost's data directory.
func savedHint(path string, h Hint) string {
	hint := fmt.Sprintf("The tool call succeeded but the output was truncated. Full output saved to: %s\n", path)
	f := h.Front
	switch {
	case f.ToolPrefix == "" && h.Delegate:
		hint += "Use the Task tool to have the explore agent process this file with Grep and Read (with offset/limit). Do NOT read the full file yourself - delegate to save context."
	case f.ToolPrefix == "":
		hint += "Use Grep to search the full content or Read with offset/limit to view specific sections."
	case h.Delegate:
		hint += fmt.Sprintf("Use %s to have the explore agent process this file with %s and %s (with offset/limit). Do NOT read the full file yourself - delegate to save context.",
			f.ToolName("task"), f.ToolName("grep"), f.ToolName("read"))
	default:
		grep := callText(map[string]any{"pattern": "<regular expression>", "path": filepath.Dir(path), "include": filepath.Base(path)})
		read := callText(map[string]any{"filePath": path, "offset": 1, "limit": 200})
		hint += fmt.Sprintf("Search it with %s %s, or view sections with %s %s (change offset and limit).",
			f.ToolName("grep"), grep, f.ToolName("read"), read)
	}
	return hint
}

// callText is a call's arguments as the model would write them: JSON
// with keys sorted and nothing HTML-escaped.
func callText(args map[string]any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(args) // maps of strings and numbers always encode
	return strings.TrimSuffix(b.String(), "\n")
}

func renderHint(kept []string, removed int, unit, direction, hint string) string {
	preview := strings.Join(kept, "\n")
	marker := fmt.Sprintf("...%d %s truncated...", removed, unit)
	if direction == KeepTail {
		return marker + "\n\n" + hint + "\n\n" + preview
	}
	return preview + "\n\n" + marker + "\n\n" + hint
}

func (t *Truncation) now() time.Time {
	if t.Now != nil {
		return t.Now()
	}
	return time.Now()
}

// save writes text to a new file named tool_<time-sortable id>.
func (t *Truncation) save(text string) (string, error) {
	f, err := t.create()
	if err != nil {
		return "", err
	}
	_, err = f.WriteString(text)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", fmt.Errorf("save truncated output: %w", err)
	}
	return f.Name(), nil
}

// create makes a new, empty file named tool_<time-sortable id> in Dir.
func (t *Truncation) create() (*os.File, error) {
	if err := os.MkdirAll(t.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("save truncated output: %w", err)
	}
	t.Cleanup()
	var rnd [4]byte
	_, _ = rand.Read(rnd[:])
	name := fmt.Sprintf("tool_%016x%s", t.now().UnixNano(), hex.EncodeToString(rnd[:]))
	f, err := os.OpenFile(filepath.Join(t.Dir, name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, fmt.Errorf("save truncated output: %w", err)
	}
	return f, nil
}

// Cleanup deletes saved outputs older than Retention. It runs at most once
// an hour across all processes sharing Dir; calls in between return at once.
func (t *Truncation) Cleanup() {
	t.cleanMu.Lock()
	defer t.cleanMu.Unlock()
	marker := filepath.Join(t.Dir, ".last-cleanup")
	now := t.now()
	if fi, err := os.Stat(marker); err == nil && now.Sub(fi.ModTime()) < cleanupInterval {
		return
	}
	_ = os.MkdirAll(t.Dir, 0o755)
	_ = os.WriteFile(marker, nil, 0o644)
	_ = os.Chtimes(marker, now, now)
	retention := t.Retention
	if retention <= 0 {
		retention = 7 * 24 * time.Hour
	}
	entries, err := os.ReadDir(t.Dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "tool_") {
			continue
		}
		if fi, err := e.Info(); err == nil && now.Sub(fi.ModTime()) > retention {
			_ = os.Remove(filepath.Join(t.Dir, e.Name()))
		}
	}
}

func randHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
