package tracing

import (
	"strings"
	"testing"
)

// A receiver's answer ends up in the operator's log: a hostile or broken
// receiver must not write terminal escapes or bidi overrides there.
func TestTheReceiversMessageIsWrittenEscaped(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, answer, want string
	}{
		{"plain JSON message", `{"message":"slow down"}`, ": slow down"},
		{"a terminal escape", "{\"message\":\"\\u001b[31mred\"}", `: \x1b[31mred`},
		{"a bidi override", "{\"message\":\"ok\u202etxt.exe\"}", `: ok\u202etxt.exe`},
		{"newlines folded", "line one\nline two", ": line one line two"},
		{"nothing", "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := statusMessage([]byte(c.answer))
			if got != c.want {
				t.Fatalf("statusMessage(%q) = %q, want %q", c.answer, got, c.want)
			}
		})
	}
	long := statusMessage([]byte(strings.Repeat("é", 300)))
	if !strings.HasSuffix(long, "…") || len(long) > 210 {
		t.Fatalf("a long message is not cut: %d bytes", len(long))
	}
}
