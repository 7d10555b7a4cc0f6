package hostfns

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestALogMessageBecomesOnePrintableLineWithinTheCap(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a", MaxLogBytes-1) + "é" + "tail"
	tests := []struct {
		name, in, want string
	}{
		{"plain text is kept as it is", "fetched 3 rows\tin 2 ms", "fetched 3 rows\tin 2 ms"},
		{"letters beyond ASCII are kept", "Zürich — 東京", "Zürich — 東京"},
		{"a newline cannot start a line of its own", "ok\nlevel=ERROR msg=forged", `ok\nlevel=ERROR msg=forged`},
		{"terminal escapes and other controls are written out", "\x1b[2J\r\x00\x7f\u0085", `\x1b[2J\r\x00\x7f\x85`},
		{"Unicode line breaks and bidi overrides are written out", "a\u2028b\u202egnp.exe\u2066", `a\u2028b\u202egnp.exe\u2066`},
		{"the bidi marks, which reorder what sits beside them, are written out", "ok\u200fdone\u200e 1\u061c2", `ok\u200fdone\u200e 1\u061c2`},
		{"bytes that are not UTF-8 are written as bytes", "x\xffy\xc3", `x\xffy\xc3`},
		{"a long message is cut at a character and says how much", long, strings.Repeat("a", MaxLogBytes-1) + fmt.Sprintf(" … (%d more bytes cut)", len("é")+len("tail"))},
		{"an escape that would cross the cap is left out whole", strings.Repeat("a", MaxLogBytes-1) + "\n", strings.Repeat("a", MaxLogBytes-1) + " … (1 more bytes cut)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := CleanLogMessage(tt.in)
			if got != tt.want {
				t.Errorf("CleanLogMessage(%.40q…) = %.80q…, want %.80q…", tt.in, got, tt.want)
			}
			body, _, _ := strings.Cut(got, " … (")
			if len(body) > MaxLogBytes || !utf8.ValidString(got) || strings.ContainsAny(got, "\n\r\x1b\u2028\u202e\u200e\u200f\u061c") {
				t.Errorf("%.80q… is not one printable line within %d bytes", got, MaxLogBytes)
			}
		})
	}
}

func BenchmarkCleanLogMessage(b *testing.B) {
	for _, bb := range []struct{ name, msg string }{
		{"plain 100 B", strings.Repeat("fetched 3 rows ", 7)},
		{"traceback 4 KB", strings.Repeat("  File \"/toolhost/tool.py\", line 12, in probe\n", 90)},
	} {
		b.Run(bb.name, func(b *testing.B) {
			for b.Loop() {
				CleanLogMessage(bb.msg)
			}
		})
	}
}
