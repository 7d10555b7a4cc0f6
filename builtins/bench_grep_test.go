package builtins

import (
	"context"
	"encoding/json"
	"io"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"testing"

	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/permission"
)

// The grep benchmark compares the grep tool with ripgrep on the Go
// toolchain's source tree, $(go env GOROOT)/src, on the same job:
//
//   - ours: one full grep tool call (walk honouring .gitignore, every file
//     searched, every matching line found and counted, results sorted
//     newest first, output rendered with the 100-match cap);
//   - ripgrep: `rg -n --no-heading --hidden --no-require-git PATTERN DIR`
//     with its output read from a pipe and discarded. --hidden and
//     --no-require-git make it walk what our walker walks (hidden files
//     included, .gitignore honoured outside a git checkout); it prints
//     every matching line, which is the work our search does before the cap.
//
// Report the ratio ours/rg of the ns/op of the same sub-benchmark, from one
// run (go test -run '^$' -bench Goroot ./builtins/).
var grepBenchPatterns = []struct{ name, pattern string }{
	{"literal", "ErrUnexpectedEOF"},
	{"regex", `func \(\w+ \*\w+\) Close\(\)`},
}

func gorootSrc(b *testing.B) string {
	root := filepath.Join(goruntime.GOROOT(), "src")
	if out, err := exec.Command("go", "env", "GOROOT").Output(); err == nil && len(out) > 1 {
		root = filepath.Join(string(out[:len(out)-1]), "src")
	}
	return root
}

func BenchmarkGrepGoroot(b *testing.B) {
	root := gorootSrc(b)
	def, err := Grep().Init(context.Background(), runtime.InitContext{Agent: &runtime.Agent{}})
	if err != nil {
		b.Fatal(err)
	}
	allow := func(context.Context, permission.Request) error { return nil }
	for _, bp := range grepBenchPatterns {
		b.Run(bp.name, func(b *testing.B) {
			tc := runtime.NewContext(runtime.Context{Directory: root, Worktree: root}, nil, allow)
			args, _ := json.Marshal(GrepParams{Pattern: bp.pattern})
			var matches any
			for b.Loop() {
				res, err := def.Execute(context.Background(), args, tc)
				if err != nil {
					b.Fatal(err)
				}
				matches = res.Metadata["matches"]
			}
			b.ReportMetric(float64(matches.(int)), "matches")
		})
	}
}

func BenchmarkRipgrepGoroot(b *testing.B) {
	rg, err := exec.LookPath("rg")
	if err != nil {
		b.Skip("ripgrep (rg) is not installed; install the ripgrep package to compare")
	}
	root := gorootSrc(b)
	for _, bp := range grepBenchPatterns {
		b.Run(bp.name, func(b *testing.B) {
			for b.Loop() {
				cmd := exec.Command(rg, "-n", "--no-heading", "--hidden", "--no-require-git", "--regexp", bp.pattern, root)
				cmd.Stdout = io.Discard // a pipe: rg must write every line
				if err := cmd.Run(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
