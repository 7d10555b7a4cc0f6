package server

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// encodingJSON is what appendJSONString must equal: encoding/json's
// encoding of s with HTML escaping off.
func encodingJSON(t testing.TB, s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

var jsonStringSeeds = []string{
	"",
	"plain ascii",
	"quotes \" and backslashes \\ and slashes /",
	"controls \x00\x01\x07\b\f\n\r\t\x1f\x7f end",
	"markup <b>&amp;</b> stays",
	"unicode héllo ✓ 🚀 日本語",
	"separators \u2028 and \u2029",
	"invalid \xff \xfe \xc3 \xe2\x82 \xed\xa0\x80 (surrogate) \xf4\x90\x80\x80 (past U+10FFFF)",
	"ends in a cut rune \xe2\x82",
	strings.Repeat("long line of a file\n", 500),
}

func TestAppendJSONStringIsEncodingJSONs(t *testing.T) {
	t.Parallel()
	for _, s := range jsonStringSeeds {
		if got, want := string(appendJSONString(nil, s)), encodingJSON(t, s); got != want {
			t.Errorf("appendJSONString(%q)\n = %s\nwant %s", s, got, want)
		}
	}
}

func FuzzAppendJSONString(f *testing.F) {
	for _, s := range jsonStringSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := string(appendJSONString([]byte("prefix"), s)), "prefix"+encodingJSON(t, s); got != want {
			t.Fatalf("appendJSONString(%q)\n = %s\nwant %s", s, got, want)
		}
	})
}

func BenchmarkAppendJSONString(b *testing.B) {
	s := strings.Repeat("line 0042: the quick brown fox jumps over the lazy dog\n", 190)
	b.Run("appendJSONString", func(b *testing.B) {
		b.SetBytes(int64(len(s)))
		buf := make([]byte, 0, 2*len(s))
		for range b.N {
			buf = appendJSONString(buf[:0], s)
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.SetBytes(int64(len(s)))
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		for range b.N {
			buf.Reset()
			enc.Encode(s)
		}
	})
}
