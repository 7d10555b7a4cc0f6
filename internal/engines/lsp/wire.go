package lsp

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// readMessage reads one Content-Length framed message.
func readMessage(r *bufio.Reader) (message, error) {
	length := -1
	for {
		line, err := readLine(r, maxHeaderLine)
		if err != nil {
			return message{}, err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		if v, ok := strings.CutPrefix(strings.ToLower(line), "content-length:"); ok {
			if length, err = strconv.Atoi(strings.TrimSpace(v)); err != nil {
				return message{}, fmt.Errorf("language server sent a bad Content-Length %q", line)
			}
		}
	}
	if length < 0 || length > maxMessage {
		return message{}, fmt.Errorf("language server sent a message without a usable Content-Length (%d)", length)
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(r, body); err != nil {
		return message{}, err
	}
	var m message
	if err := json.Unmarshal(body, &m); err != nil {
		return message{}, fmt.Errorf("language server sent invalid JSON: %w", err)
	}
	return m, nil
}

// maxHeaderLine bounds one header line of a message.
const maxHeaderLine = 4096

// readLine reads up to and including '\n', refusing a line over max bytes
// as soon as it is: a server that never ends a line must not make
// toolhost buffer all it sends.
func readLine(r *bufio.Reader, max int) (string, error) {
	var line []byte
	for {
		part, err := r.ReadSlice('\n')
		if len(line)+len(part) > max {
			return "", fmt.Errorf("language server sent a header line over %d bytes", max)
		}
		line = append(line, part...)
		switch {
		case err == nil:
			return string(line), nil
		case !errors.Is(err, bufio.ErrBufferFull):
			return "", err
		}
	}
}

func fileURI(path string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}

func uriPath(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" || u.Path == "" {
		return ""
	}
	return filepath.Clean(filepath.FromSlash(u.Path))
}

// cleanText is a server's text as the model and a terminal may see it:
// without control characters but newlines and tabs (an escape sequence
// recolours or rewrites a person's screen, a carriage return hides what
// precedes it) or bidirectional overrides, and cut to max bytes.
func cleanText(s string, max int) string {
	s = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return r
		}
		if unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) {
			return -1
		}
		return r
	}, s)
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// languageID is the LSP language identifier for a file, by extension; the
// extension without its dot otherwise, which most servers accept.
func languageID(path string) string {
	ext := strings.TrimPrefix(filepath.Ext(path), ".")
	switch ext {
	case "ts", "mts", "cts":
		return "typescript"
	case "tsx":
		return "typescriptreact"
	case "js", "mjs", "cjs":
		return "javascript"
	case "jsx":
		return "javascriptreact"
	case "py", "pyi":
		return "python"
	case "rs":
		return "rust"
	case "rb":
		return "ruby"
	case "md":
		return "markdown"
	case "sh", "bash", "zsh", "ksh":
		return "shellscript"
	case "h":
		return "c"
	case "cc", "cxx", "c++", "hpp", "hh", "hxx", "h++":
		return "cpp"
	}
	return ext
}

// tailBuffer keeps the last max bytes written, for error messages.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}
