package builtins

import (
	"fmt"
	"strings"
	"testing"
)

func TestDiffTexts(t *testing.T) {
	t.Parallel()
	var big strings.Builder
	for i := range 100 {
		fmt.Fprintf(&big, "l%d\n", i)
	}
	bigBefore := big.String()
	bigAfter := strings.Replace(bigBefore, "l50\n", "L50\n", 1)
	tests := []struct {
		name           string
		before, after  string
		want           string
		adds, removals int
	}{
		{name: "equal texts have no diff", before: "a\n", after: "a\n", want: ""},
		{name: "a new file is all additions", before: "", after: "a\nb\n", want: "--- f\n+++ f\n@@ -0,0 +1,2 @@\n+a\n+b\n", adds: 2},
		{name: "a deleted file is all deletions", before: "a\n", after: "", want: "--- f\n+++ f\n@@ -1 +0,0 @@\n-a\n", removals: 1},
		{name: "a change in a long file shows three lines of context with real line numbers", before: bigBefore, after: bigAfter,
			want: "--- f\n+++ f\n@@ -48,7 +48,7 @@\n l47\n l48\n l49\n-l50\n+L50\n l51\n l52\n l53\n", adds: 1, removals: 1},
		{name: "a missing final newline is marked", before: "a\nb", after: "a\nc",
			want: "--- f\n+++ f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n", adds: 1, removals: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := diffTexts("f", tt.before, tt.after)
			if d.Unified != tt.want || d.Additions != tt.adds || d.Deletions != tt.removals {
				t.Fatalf("diff = %q (+%d -%d), want %q (+%d -%d)", d.Unified, d.Additions, d.Deletions, tt.want, tt.adds, tt.removals)
			}
		})
	}
}
