package builtins

import (
	"bufio"
	"bytes"
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

// looksBinaryByte is looksBinary byte by byte, as OpenCode counts: its
// word-at-a-time count must agree.
func looksBinaryByte(sample []byte) bool {
	if len(sample) == 0 {
		return false
	}
	control := 0
	for _, b := range sample {
		if b == 0 {
			return true
		}
		if b < 32 && (b < 9 || b > 13) {
			control++
		}
	}
	return float64(control)/float64(len(sample)) > 0.3
}

func FuzzLooksBinaryCountsAsOpenCode(f *testing.F) {
	f.Add([]byte("plain text\nwith lines\n"))
	f.Add([]byte("\x01\x02\x03\x1f\x7f\x80\xff\x20\x1b[31mred\x1b[0m\t\r\n"))
	f.Add(bytes.Repeat([]byte{0x1f, 0x20, 0x9f, 0xa0, 0x08, 0x0e}, 20))
	f.Fuzz(func(t *testing.T, sample []byte) {
		if got, want := looksBinary(sample), looksBinaryByte(sample); got != want {
			t.Errorf("looksBinary(%q) = %v, want %v", sample, got, want)
		}
	})
}
