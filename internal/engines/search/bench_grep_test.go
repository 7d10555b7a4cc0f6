package search

import (
	"context"
	"io"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"testing"
	"time"
)

// The grep benchmark compares the search engine with ripgrep on the Go
// toolchain's source tree, $(go env GOROOT)/src, on the same job:
//
//   - ours: one Grep, as the grep tool runs it (walk honouring .gitignore,
//     every file searched, every matching line found and counted, the
//     first 100 of each file kept, results sorted newest first; the tool
//     adds only its permission check and the rendering of 100 lines);
//   - ripgrep: `rg -n --no-heading --hidden --no-require-git PATTERN DIR`
//     with its output read from a pipe and discarded. --hidden and
//     --no-require-git make it walk what our walker walks (hidden files
//     included, .gitignore honoured outside a git checkout); it prints
//     every matching line, which is the work our search does before the cap.
//
// BenchmarkGrepGoroot and BenchmarkRipgrepGoroot time each side on its own.
// On a shared machine their ratio drifts with the load, so
// BenchmarkGrepVsRipgrepGoroot alternates the two within every iteration
// and reports both times and the ratio ours/rg of their totals: that is the
// number to quote (go test -run '^$' -bench GrepVsRipgrep ./internal/engines/search/).
var grepBenchPatterns = []struct{ name, pattern string }{
	{"literal", "ErrUnexpectedEOF"},
	{"regex", `func \(\w+ \*\w+\) Close\(\)`},
	// No literal every match must contain: the needle search cannot help
	// and the regexp engine sees every byte (issue 13: ≤ 2× ripgrep).
	{"no-literal", `[A-Z]{4,}[0-9]+`},
}

func gorootSrc(b *testing.B) string {
	root := filepath.Join(goruntime.GOROOT(), "src")
	if out, err := exec.Command("go", "env", "GOROOT").Output(); err == nil && len(out) > 1 {
		root = filepath.Join(string(out[:len(out)-1]), "src")
	}
	return root
}

// grepBenchCall returns a function running one search for pattern on root
// as the grep tool does (pattern compiled per call, 100 lines kept per
// file), returning the number of matches.
func grepBenchCall(b *testing.B, root, pattern string) func() int {
	return func() int {
		m, err := Compile(pattern)
		if err != nil {
			b.Fatal(err)
		}
		res, err := Grep(context.Background(), root, m, GrepOptions{MaxLines: 100})
		if err != nil {
			b.Fatal(err)
		}
		return res.Total
	}
}

// ripgrepBenchCall returns a function running rg for pattern on root, or
// skips the benchmark when rg is not installed.
func ripgrepBenchCall(b *testing.B, root, pattern string) func() {
	rg, err := exec.LookPath("rg")
	if err != nil {
		b.Skip("ripgrep (rg) is not installed; install the ripgrep package to compare")
	}
	return func() {
		cmd := exec.Command(rg, "-n", "--no-heading", "--hidden", "--no-require-git", "--regexp", pattern, root)
		cmd.Stdout = io.Discard // a pipe: rg must write every line
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGrepGoroot(b *testing.B) {
	root := gorootSrc(b)
	for _, bp := range grepBenchPatterns {
		b.Run(bp.name, func(b *testing.B) {
			call := grepBenchCall(b, root, bp.pattern)
			matches := 0
			for b.Loop() {
				matches = call()
			}
			b.ReportMetric(float64(matches), "matches")
		})
	}
}

func BenchmarkGrepVsRipgrepGoroot(b *testing.B) {
	root := gorootSrc(b)
	for _, bp := range grepBenchPatterns {
		b.Run(bp.name, func(b *testing.B) {
			ours, rg := grepBenchCall(b, root, bp.pattern), ripgrepBenchCall(b, root, bp.pattern)
			// One untimed run of each first: the first search after the
			// tree left the page and directory caches reads from disk, and
			// would be charged to whichever side runs first.
			ours()
			rg()
			var oursTime, rgTime time.Duration
			for b.Loop() {
				start := time.Now()
				ours()
				mid := time.Now()
				rg()
				oursTime += mid.Sub(start)
				rgTime += time.Since(mid)
			}
			n := float64(b.N)
			b.ReportMetric(float64(oursTime.Nanoseconds())/n, "ours-ns/op")
			b.ReportMetric(float64(rgTime.Nanoseconds())/n, "rg-ns/op")
			b.ReportMetric(float64(oursTime)/float64(rgTime), "ours/rg")
		})
	}
}

func BenchmarkRipgrepGoroot(b *testing.B) {
	root := gorootSrc(b)
	for _, bp := range grepBenchPatterns {
		b.Run(bp.name, func(b *testing.B) {
			call := ripgrepBenchCall(b, root, bp.pattern)
			for b.Loop() {
				call()
			}
		})
	}
}
