//go:build unix

package builtins

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/runtime"
)

// BenchmarkBashPermissions measures parsing a typical compound command line
// into permission patterns, paid before every bash call.
func BenchmarkBashPermissions(b *testing.B) {
	cmd := `cd sub && CGO_ENABLED=0 go build ./... 2>&1 | tee build.log && bash -c 'rm -rf dist && npm run build' || echo "failed: $(date +%s)"`
	in := func(string) bool { return true }
	for b.Loop() {
		if _, err := BashPermissionRequests(cmd, "/project", "/project", in); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBashTrue measures the tool's whole overhead around the cheapest
// command: parse, permission, process group start, output pipe, wait.
func BenchmarkBashTrue(b *testing.B) {
	dir := b.TempDir()
	def, err := Bash().Init(context.Background(), runtime.InitContext{Agent: &runtime.Agent{Name: "build"}})
	if err != nil {
		b.Fatal(err)
	}
	tc := bashContext(dir, &bashProbe{}, nil)
	args := []byte(`{"command":"true","description":"nothing"}`)
	for b.Loop() {
		if _, err := def.Execute(context.Background(), args, tc); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBashAnalysisCorpus measures the analysis over the whole
// adversarial corpus; divide by the command count (reported) for the cost
// per command.
func BenchmarkBashAnalysisCorpus(b *testing.B) {
	data, err := os.ReadFile(bashCorpusFile)
	if err != nil {
		b.Fatal(err)
	}
	var cmds []string
	for _, l := range strings.Split(string(data), "\n") {
		if c, ok := strings.CutPrefix(l, "$ "); ok {
			cmds = append(cmds, c)
		}
	}
	b.ReportMetric(float64(len(cmds)), "commands")
	for b.Loop() {
		for _, c := range cmds {
			_, _ = BashPermissionRequests(c, "/project", "/project", inFakeProject)
		}
	}
}
