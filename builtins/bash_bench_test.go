//go:build unix

package builtins

import (
	"context"
	"testing"

	"github.com/toolhost/toolhost/runtime"
)

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
