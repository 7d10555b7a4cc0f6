package runtime

import (
	"math/rand/v2"
	"os"
	"strings"
	"testing"
)

// TestSpoolRendersWhatTruncateWould feeds the same outputs to Truncate
// whole and to a Spool in random pieces: the content must match (but for
// the file name) and the saved file must hold every byte.
func TestSpoolRendersWhatTruncateWould(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	gen := func() string {
		var b strings.Builder
		for range rng.IntN(400) {
			switch rng.IntN(4) {
			case 0:
				b.WriteString("\n")
			case 1:
				b.WriteString(strings.Repeat("x", rng.IntN(300)))
			default:
				b.WriteString("line ü\n")
			}
		}
		return b.String()
	}
	edge := []string{"", "\n", "a", strings.Repeat("a", 100), strings.Repeat("a", 101), strings.Repeat("\n", 9), strings.Repeat("\n", 10), strings.Repeat("y", 5000)}
	for i := range 300 {
		text := gen()
		if i < len(edge) {
			text = edge[i]
		}
		lines, bytes := 1+rng.IntN(12), 1+rng.IntN(200)
		if i < len(edge) {
			lines, bytes = 10, 100
		}
		dir := t.TempDir()
		want, err := (&Truncation{MaxLines: lines, MaxBytes: bytes, Dir: dir}).Truncate(text, KeepHead, Hint{Delegate: i%2 == 0})
		if err != nil {
			t.Fatal(err)
		}
		sp := (&Truncation{MaxLines: lines, MaxBytes: bytes, Dir: dir}).NewSpool()
		for rest := text; len(rest) > 0; {
			n := min(len(rest), 1+rng.IntN(64))
			sp.Write([]byte(rest[:n]))
			rest = rest[n:]
		}
		got, err := sp.Result(Hint{Delegate: i%2 == 0})
		if err != nil {
			t.Fatal(err)
		}
		if got.Truncated != want.Truncated || strings.ReplaceAll(got.Content, got.Path, "P") != strings.ReplaceAll(want.Content, want.Path, "P") {
			t.Fatalf("case %d (max %d lines, %d bytes, text %q):\nspool    %q\ntruncate %q", i, lines, bytes, text, got.Content, want.Content)
		}
		if got.Truncated {
			saved, err := os.ReadFile(got.Path)
			if err != nil || string(saved) != text {
				t.Fatalf("case %d: saved file holds %d bytes (%v), want all %d", i, len(saved), err, len(text))
			}
		}
	}
}

func TestSpoolKeepsABoundedHeadAndReportsASaveFailure(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	blocker := dir + "/file"
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	sp := (&Truncation{MaxLines: 10, MaxBytes: 100, Dir: blocker + "/sub"}).NewSpool()
	chunk := []byte(strings.Repeat("z", 1000))
	for range 1000 {
		sp.Write(chunk)
	}
	if len(sp.head) > 100+spoolMargin {
		t.Errorf("head grew to %d bytes", len(sp.head))
	}
	res, err := sp.Result(Hint{})
	if err == nil || !res.Truncated || res.Path != "" || !strings.Contains(res.Content, "could not be saved") || !strings.Contains(res.Content, "...1000000 bytes truncated...") {
		t.Errorf("Result = %+v, %v; want the head, the marker and the failure", res, err)
	}
}
