package lsp

import (
	"bufio"
	"io"
	"strings"
	"testing"
)

func TestReadMessageRefusesWhatABrokenServerSends(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, wantErr string
	}{
		{"no Content-Length", "Content-Type: x\r\n\r\n{}", "without a usable Content-Length"},
		{"a Content-Length that is not a number", "Content-Length: ten\r\n\r\n", "bad Content-Length"},
		{"a Content-Length over the limit", "Content-Length: 999999999999\r\n\r\n", "without a usable Content-Length"},
		{"a negative Content-Length", "Content-Length: -1\r\n\r\n", "without a usable Content-Length"},
		{"a body that is not JSON", "Content-Length: 3\r\n\r\nabc", "invalid JSON"},
		{"a header line without end", strings.Repeat("x", 5000) + "\n", "header line over 4096 bytes"},
		{"a body cut short", "Content-Length: 10\r\n\r\n{}", "EOF"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := readMessage(bufio.NewReader(strings.NewReader(tt.in)))
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("err = %v, want %q", err, tt.wantErr)
			}
		})
	}
	m, err := readMessage(bufio.NewReader(strings.NewReader("content-length: 40\r\n\r\n{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"id\":7}   ")))
	if err != nil || m.Method != "x" || string(m.ID) != "7" {
		t.Errorf("a good message: %+v, %v", m, err)
	}
}

func FuzzReadMessage(f *testing.F) {
	f.Add("Content-Length: 2\r\n\r\n{}")
	f.Add("Content-Length: 60\r\n\r\n{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/publishDiagnostics\"}")
	f.Add("Content-Length: 5\r\nContent-Length: 2\r\n\r\n{}")
	f.Fuzz(func(t *testing.T, in string) {
		r := bufio.NewReader(strings.NewReader(in))
		for range 4 {
			if _, err := readMessage(r); err != nil {
				return
			}
		}
	})
}

func TestURIsRoundTrip(t *testing.T) {
	t.Parallel()
	for _, p := range []string{"/a/b.go", "/with space/ä#?.go"} {
		if got := uriPath(fileURI(p)); got != p {
			t.Errorf("uriPath(fileURI(%q)) = %q", p, got)
		}
	}
	for _, u := range []string{"http://x/a.go", "file:", "::"} {
		if got := uriPath(u); got != "" {
			t.Errorf("uriPath(%q) = %q, want none", u, got)
		}
	}
}

// countingReader yields n bytes of 'x' (no newline) and counts what was
// taken.
type countingReader struct{ n, read int }

func (c *countingReader) Read(p []byte) (int, error) {
	if c.read >= c.n {
		return 0, io.EOF
	}
	k := min(len(p), c.n-c.read)
	for i := range k {
		p[i] = 'x'
	}
	c.read += k
	return k, nil
}

// TestReadMessageStopsAtAnEndlessHeaderLine: a server that never ends a
// header line must be refused once the line passes the limit, not after
// toolhost has buffered all it sends (without end, all its memory).
func TestReadMessageStopsAtAnEndlessHeaderLine(t *testing.T) {
	t.Parallel()
	src := &countingReader{n: 256 << 20}
	_, err := readMessage(bufio.NewReader(src))
	if err == nil || !strings.Contains(err.Error(), "header line over 4096 bytes") {
		t.Fatalf("err = %v", err)
	}
	if src.read > 1<<20 {
		t.Fatalf("read %d bytes of one header line before refusing it", src.read)
	}
}
