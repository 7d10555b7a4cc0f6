package builtins

// Benchmarks of the file tools, each paired with a baseline measured in the
// same run so BENCHMARKS.md can report ratios:
//
//	go test ./builtins -run '^$' -bench 'EditBlockAnchor10k|EditExact10k|ReadLastPage100MB' -benchmem
//
// Targets (issue 3): a fuzzy block-anchor edit of a 10 000-line file under
// 50 ms; reading the last page of a 100 MB file without loading the file
// (allocations far below 100 MB per read).

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const benchEditLines = 10_000

// benchSource is a 10 000-line Go-like file of small functions, and the
// function the edit targets.
func benchSource() (content string, target int) {
	var b strings.Builder
	n := 0
	for fn := 0; n < benchEditLines; fn++ {
		fmt.Fprintf(&b, "func handler%d(w http.ResponseWriter, r *http.Request) {\n", fn)
		fmt.Fprintf(&b, "\tid := r.URL.Query().Get(\"id%d\")\n", fn)
		fmt.Fprintf(&b, "\tif id == \"\" {\n\t\thttp.Error(w, \"missing id\", 400)\n\t\treturn\n\t}\n")
		fmt.Fprintf(&b, "\tfmt.Fprintf(w, \"handler %d: %%s\", id)\n}\n\n", fn)
		n += 10
	}
	return b.String(), (benchEditLines / 10) * 3 / 4 // a function three quarters down
}

// benchFuzzyOld is the target function as a model might misremember it:
// the anchors are right, the middle lines are not, so the exact,
// line-trimmed and every cheaper replacer fail and block-anchor decides.
func benchFuzzyOld(fn int) string {
	return fmt.Sprintf("func handler%d(w http.ResponseWriter, r *http.Request) {\n"+
		"\tid := r.URL.Query().Get(\"ident%d\")\n"+
		"\tif id == \"\" {\n\t\thttp.Error(w, \"no id\", 400)\n\t\treturn\n\t}\n"+
		"\tfmt.Fprintf(w, \"handler %d: %%q\", id)\n}", fn, fn, fn)
}

func benchExactOld(fn int) string {
	return fmt.Sprintf("\tfmt.Fprintf(w, \"handler %d: %%s\", id)\n", fn)
}

// benchEdit runs the edit tool b.N times on a fresh copy of the file.
func benchEdit(b *testing.B, old, wantBy string) {
	content, _ := benchSource()
	e := newFTEnv(b)
	p := e.write(b, "big.go", content)
	params := editParams{FilePath: p, OldString: old, NewString: "// replaced\n"}
	// Correctness first: the edit must work and be decided by wantBy.
	e.readAndStamp(b, p)
	res, err := e.call(b, Edit(), params)
	if err != nil {
		b.Fatal(err)
	}
	if by := res.Metadata["replacers"].([]string)[0]; by != wantBy {
		b.Fatalf("matched by %s, want %s", by, wantBy)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		e.write(b, "big.go", content)
		e.readAndStamp(b, p)
		b.StartTimer()
		if _, err := e.call(b, Edit(), params); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEditBlockAnchor10k is a whole edit tool call (stamp check, lock,
// cascade, diff, atomic write) whose oldString only the block-anchor
// replacer matches, in a 10 000-line file.
func BenchmarkEditBlockAnchor10k(b *testing.B) {
	_, fn := benchSource()
	benchEdit(b, benchFuzzyOld(fn), "block-anchor")
}

// BenchmarkEditExact10k is the baseline: the same call with an oldString
// that matches exactly.
func BenchmarkEditExact10k(b *testing.B) {
	_, fn := benchSource()
	benchEdit(b, benchExactOld(fn), "exact")
}

// BenchmarkReplaceBlockAnchor10k is the cascade alone, without file I/O.
func BenchmarkReplaceBlockAnchor10k(b *testing.B) {
	content, fn := benchSource()
	old := benchFuzzyOld(fn)
	b.ReportAllocs()
	for b.Loop() {
		if _, by, err := replace(content, old, "x", false); err != nil || by != "block-anchor" {
			b.Fatal(by, err)
		}
	}
}

const (
	benchReadSize = 100 << 20 // 100 MB
	benchLineLen  = 100       // bytes per line, newline included
)

// BenchmarkReadLastPage100MB reads the last page of a 100 MB file with the
// read tool; the file is created once and shared by the sub-benchmarks.
// "os.ReadFile" is the baseline: loading the whole file, which the tool
// must not do.
func BenchmarkReadLastPage100MB(b *testing.B) {
	p := filepath.Join(b.TempDir(), "big.log")
	f, err := os.Create(p)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	lines := benchReadSize / benchLineLen
	pad := strings.Repeat("x", benchLineLen-len("line 00000000 ")-1)
	for i := 1; i <= lines; i++ {
		fmt.Fprintf(w, "line %08d %s\n", i, pad)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	offset := lines - 399 // the last 400 lines: 40 KB, under the 50 KB cap

	b.Run("read-tool", func(b *testing.B) {
		e := newFTEnv(b)
		params := readParams{FilePath: p, Offset: offset}
		res, err := e.call(b, Read(), params)
		if err != nil {
			b.Fatal(err)
		}
		wantLast := fmt.Sprintf("%d: line %08d", lines, lines)
		if !strings.Contains(res.Output, wantLast) || !strings.Contains(res.Output, fmt.Sprintf("(End of file - total %d lines)", lines)) {
			b.Fatalf("last page wrong:\n%s", res.Output[len(res.Output)-300:])
		}
		b.SetBytes(benchReadSize)
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			if _, err := e.call(b, Read(), params); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("os.ReadFile-baseline", func(b *testing.B) {
		b.SetBytes(benchReadSize)
		b.ReportAllocs()
		for range b.N {
			data, err := os.ReadFile(p)
			if err != nil || len(data) != lines*benchLineLen {
				b.Fatal(len(data), err)
			}
		}
	})
}
