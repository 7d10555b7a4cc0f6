//go:build unix

package builtins

import (
	"context"
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
