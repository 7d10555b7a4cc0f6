//go:build unix

package shellperm

import (
	"os"
	"strings"
	"testing"
)

// BenchmarkBashPermissions measures parsing a typical compound command line
// into permission patterns, paid before every bash call.
func BenchmarkBashPermissions(b *testing.B) {
	cmd := `cd sub && CGO_ENABLED=0 go build ./... 2>&1 | tee build.log && bash -c 'rm -rf dist && npm run build' || echo "failed: $(date +%s)"`
	in := func(string) bool { return true }
	for b.Loop() {
		if _, err := Requests(cmd, "/project", "/project", in); err != nil {
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
			_, _ = Requests(c, "/project", "/project", inFakeProject)
		}
	}
}
