package builtins

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
)

// verdict is what read makes of a file starting with head.
func verdict(head []byte) string {
	if ct, _ := sniff(head); ct != ctNone {
		return ct.name
	}
	if looksBinary(head) {
		return "binary"
	}
	return "text"
}

// TestSniffCorpus runs testdata/sniff_corpus.txt: real signatures, the same
// signatures cut short, and text that merely starts like one.
func TestSniffCorpus(t *testing.T) {
	t.Parallel()
	f, err := os.Open("testdata/sniff_corpus.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		fields := strings.Split(text, "\t")
		if len(fields) != 3 {
			t.Fatalf("line %d: want verdict, content and why separated by tabs: %q", line, text)
		}
		content, err := strconv.Unquote(fields[1])
		if err != nil {
			t.Fatalf("line %d: content is not a Go string literal: %v", line, err)
		}
		n++
		if got := verdict([]byte(content)); got != fields[0] {
			t.Errorf("line %d (%s): %q is %q, want %q", line, fields[2], content, got, fields[0])
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 40 {
		t.Fatalf("only %d cases read from the corpus", n)
	}
}

// FuzzSniffContent checks the sniffer never panics and that only the
// formats models take are attached.
func FuzzSniffContent(f *testing.F) {
	f.Add([]byte("\x00\x00\x00\x1cftypavif\x00\x00\x00\x00avifmif1miaf"))
	f.Add([]byte("\xff\xff\xff\xf0ftypheic"))
	f.Add([]byte("GIF89a\x01\x00\x01\x00\x80\x00\x00"))
	f.Add([]byte("BM\x36\x00\x0c\x00\x00\x00\x00\x00\x36\x00\x00\x00\x28\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, head []byte) {
		ct, _ := sniff(head)
		if ct.action == sniffAttach {
			switch ct.mime {
			case "image/png", "image/jpeg", "image/gif", "image/webp", "application/pdf":
			default:
				t.Fatalf("attached as %q", ct.mime)
			}
		}
	})
}
