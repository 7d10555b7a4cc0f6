package builtins

import (
	"slices"
	"strings"
	"testing"
)

// TestEachReplacerDecidesOrIsReached drives the cascade with inputs built so
// that each replacer is the one that matches — or, for the two that OpenCode's
// order makes unable to decide (indentation-flexible proposes only blocks the
// whitespace-normalised replacer already proposed; multi-occurrence proposes
// only oldString itself, which the exact replacer already tried), is reached.
func TestEachReplacerDecidesOrIsReached(t *testing.T) {
	t.Parallel()
	contextAwareFile := "A\n\n\n\n\n\n\nx\nDIFFERENT\nZ\nmid\nA\nq\nZ\n"
	tests := []struct {
		name      string
		content   string
		old, new  string
		all       bool
		want      string
		wantBy    string // replacer that matched; "" when an error is expected
		wantErr   error
		mustReach string
	}{
		{name: "exact", content: "a b c", old: "b", new: "X", want: "a X c", wantBy: "exact"},
		{name: "line-trimmed", content: "  foo()\n  bar()\n", old: "foo()\nbar()", new: "baz()", want: "baz()\n", wantBy: "line-trimmed"},
		{
			name:    "block-anchor with one candidate",
			content: "func f() {\n\tx := 1\n\ty := 2\n\treturn x + y\n}\n",
			old:     "func f() {\n\tx := 10\n\ty := 20\n\treturn x + y\n}",
			new:     "func f() int { return 3 }",
			want:    "func f() int { return 3 }\n", wantBy: "block-anchor",
		},
		{
			name:    "block-anchor picks the most similar of several candidates",
			content: "if a {\n\tone()\n}\nif a {\n\ttwo()\n}\n",
			old:     "if a {\n\ttwo(x)\n}",
			new:     "if b {}",
			want:    "if a {\n\tone()\n}\nif b {}\n", wantBy: "block-anchor",
		},
		{name: "whitespace-normalized", content: "x :=   f( a,  b )\n", old: "f( a, b )", new: "g()", want: "x :=   g()\n", wantBy: "whitespace-normalized"},
		{name: "escape-normalized", content: "say(\"hi\")\n", old: `say(\"hi\")`, new: "say(\"bye\")", want: "say(\"bye\")\n", wantBy: "escape-normalized"},
		{name: "trimmed-boundary", content: "xfoo\nbary", old: "\nfoo\nbar", new: "F\nB", want: "xF\nBy", wantBy: "trimmed-boundary"},
		{
			name:    "context-aware",
			content: contextAwareFile,
			old:     "A\n\n\n\n\n\n\nx\ny\nZ",
			new:     "REPLACED",
			want:    "REPLACED\nmid\nA\nq\nZ\n", wantBy: "context-aware",
		},
		{
			name:    "indentation-flexible is reached before escape-normalized decides",
			content: "say(\"hi\")\n", old: `say(\"hi\")`, new: "x",
			want: "x\n", wantBy: "escape-normalized", mustReach: "indentation-flexible",
		},
		{
			name:    "multi-occurrence is reached for an ambiguous oldString",
			content: "dup\ndup\n", old: "dup", new: "x",
			wantErr: errMultipleMatch, mustReach: "multi-occurrence",
		},
		{name: "replaceAll uses the first replacer that finds anything", content: "  v\n  v\n", old: "v", new: "w", all: true, want: "  w\n  w\n", wantBy: "exact"},
		{name: "nothing found", content: "abc", old: "xyz", new: "q", wantErr: errNotFound, mustReach: "multi-occurrence"},
		{name: "identical strings", content: "abc", old: "b", new: "b", wantErr: errSameStrings},
		{name: "an all-whitespace oldString never matches the empty string", content: "abc", old: "   ", new: "X", wantErr: errNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var reached []string
			got, by, err := replaceTraced(tt.content, tt.old, tt.new, tt.all, func(n string) { reached = append(reached, n) })
			if tt.mustReach != "" && !slices.Contains(reached, tt.mustReach) {
				t.Errorf("cascade stopped at %v without reaching %s", reached, tt.mustReach)
			}
			if tt.wantErr != nil {
				if err != tt.wantErr {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want || by != tt.wantBy {
				t.Fatalf("got %q by %s, want %q by %s", got, by, tt.want, tt.wantBy)
			}
		})
	}
}

// TestReplacersPropose checks what each replacer proposes on its own.
func TestReplacersPropose(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		fn      replacer
		content string
		find    string
		want    []string
	}{
		{"indentation-flexible finds a block indented as a whole", indentationFlexibleReplacer, "\t\tif x {\n\t\t\ty()\n\t\t}\n", "if x {\n\ty()\n}", []string{"\t\tif x {\n\t\t\ty()\n\t\t}"}},
		{"indentation-flexible keeps relative indentation", indentationFlexibleReplacer, "  a\n  b\n", "a\n  b", nil},
		{"multi-occurrence proposes each occurrence", multiOccurrenceReplacer, "ab ab ab", "ab", []string{"ab", "ab", "ab"}},
		{"line-trimmed ignores a trailing newline of find", lineTrimmedReplacer, " a\n b\n", "a\nb\n", []string{" a\n b"}},
		{"block-anchor needs three lines", blockAnchorReplacer, "a\nb\n", "a\nb", nil},
		{"block-anchor rejects weak matches among several", blockAnchorReplacer, "A\nqqqq\nZ\nA\nrrrr\nZ\n", "A\nxxxx\nZ", nil},
		{"whitespace-normalized finds words across spaces and tabs", whitespaceNormalizedReplacer, "call(a,\tb)", "a, b", []string{"a,\tb"}},
		{"escape-normalized proposes the unescaped text, then the block equal to it", escapeNormalizedReplacer, "a\nb", `a\nb`, []string{"a\nb", "a\nb"}},
		{"trimmed-boundary skips an already trimmed find", trimmedBoundaryReplacer, "abc", "abc", nil},
		{"context-aware needs equal block length", contextAwareReplacer, "A\nb\nc\nZ\n", "A\nb\nZ", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := slices.Collect(tt.fn(tt.content, tt.find))
			if !slices.Equal(got, tt.want) {
				t.Fatalf("proposed %q, want %q", got, tt.want)
			}
		})
	}
}

func TestLevenshtein(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"abc", "", 3}, {"", "ab", 2}, {"kitten", "sitting", 3}, {"flaw", "lawn", 2}, {"héllo", "hello", 1},
	}
	for _, tt := range tests {
		if got := levenshtein(tt.a, tt.b); got != tt.want {
			t.Errorf("levenshtein(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

// FuzzReplace checks the cascade never panics and, when it succeeds,
// returns text containing newString. Seeds live in testdata/fuzz/FuzzReplace.
func FuzzReplace(f *testing.F) {
	f.Add("a\nb\nc\n", "b", "B", false)
	f.Add("  x\n\ty\n", "x\ny", "z", true)
	f.Add("if a {\n\tb()\n}\n", "if a {\n\tc()\n}", "", false)
	f.Add("say(\"hi\")", `say(\"hi\")`, "q", false)
	f.Fuzz(func(t *testing.T, content, old, new string, all bool) {
		got, by, err := replace(content, old, new, all)
		if err != nil {
			if got != "" || by != "" {
				t.Fatalf("error %v came with output %q by %q", err, got, by)
			}
			return
		}
		if !strings.Contains(got, new) {
			t.Fatalf("replace(%q, %q, %q, %v) = %q by %s, which lacks newString", content, old, new, all, got, by)
		}
	})
}
