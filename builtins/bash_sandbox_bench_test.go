//go:build linux

package builtins

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/toolhost/toolhost/internal/confine/sandbox"
	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/config"
	"github.com/toolhost/toolhost/runtime/permission"
)

// BenchmarkBashStartSandboxed and BenchmarkBashStartPlain measure one bash
// call of `true` with and without the Landlock sandbox, in one run: the
// difference is the helper's re-execution of the test binary, its
// restriction and its exec of the shell. The plan (the carve around the
// credentials in home) is made once and reused (sandbox.CachedPlan).
func BenchmarkBashStartSandboxed(b *testing.B) {
	requireLandlock(b, 1)
	benchBashStart(b, &config.Config{})
}

// BenchmarkBashStartLockedDown adds what a locked-down config costs: the
// network off (the socket filter, the abstract socket scope) and reads
// confined by an external_directory deny (more rules to add).
func BenchmarkBashStartLockedDown(b *testing.B) {
	requireLandlock(b, sandbox.MinNetworkABI)
	off := false
	benchBashStart(b, &config.Config{Sandbox: config.Sandbox{Network: &off}}, denyOutside...)
}

func BenchmarkBashStartPlain(b *testing.B) {
	off := false
	benchBashStart(b, &config.Config{Sandbox: config.Sandbox{Enabled: &off}})
}

func benchBashStart(b *testing.B, cfg *config.Config, rules ...permission.Rule) {
	dir := b.TempDir()
	def, err := Bash().Init(context.Background(), runtime.InitContext{Agent: &runtime.Agent{Name: "build"}})
	if err != nil {
		b.Fatal(err)
	}
	tc := bashContext(dir, &bashProbe{}, cfg)
	// toolhost's state where it is by default, not in the temporary
	// directory, which would then be carved (see package sandbox).
	tc.StateDirs = []string{runtime.DefaultDataDir()}
	tc.Rules = rules
	args := []byte(`{"command":"true","description":"nothing"}`)
	for b.Loop() {
		res, err := def.Execute(context.Background(), args, tc)
		if err != nil || res.Metadata["exit"] != 0 {
			b.Fatalf("bash true: %v %v", err, res.Output)
		}
	}
}

// BenchmarkBashStartSideBySide runs, in each iteration, one bash call of
// `true` under the sandbox and one without, alternating which goes first,
// and reports each one's mean and their difference: the machine's load
// weighs on both alike.
func BenchmarkBashStartSideBySide(b *testing.B) {
	requireLandlock(b, 1)
	off := false
	sandboxed, plain := bashStarter(b, &config.Config{}), bashStarter(b, &config.Config{Sandbox: config.Sandbox{Enabled: &off}})
	var tSandboxed, tPlain time.Duration
	var deltas []time.Duration // each iteration's own: its two calls ran back to back
	n := 0
	for b.Loop() {
		first, second, t1, t2 := sandboxed, plain, &tSandboxed, &tPlain
		if n%2 == 1 {
			first, second, t1, t2 = plain, sandboxed, &tPlain, &tSandboxed
		}
		d1, d2 := first(), second()
		*t1 += d1
		*t2 += d2
		if n%2 == 1 {
			d1, d2 = d2, d1
		}
		deltas = append(deltas, d1-d2)
		n++
	}
	slices.Sort(deltas)
	b.ReportMetric(float64(tSandboxed.Microseconds())/float64(n)/1000, "ms-sandboxed/op")
	b.ReportMetric(float64(tPlain.Microseconds())/float64(n)/1000, "ms-plain/op")
	b.ReportMetric(float64((tSandboxed-tPlain).Microseconds())/float64(n)/1000, "ms-delta/op")
	b.ReportMetric(float64(deltas[len(deltas)/2].Microseconds())/1000, "ms-delta-median")
}

// bashStarter returns a function that makes one bash call of `true` under
// cfg and returns how long it took.
func bashStarter(b *testing.B, cfg *config.Config) func() time.Duration {
	def, err := Bash().Init(context.Background(), runtime.InitContext{Agent: &runtime.Agent{Name: "build"}})
	if err != nil {
		b.Fatal(err)
	}
	tc := bashContext(b.TempDir(), &bashProbe{}, cfg)
	tc.StateDirs = []string{runtime.DefaultDataDir()}
	args := []byte(`{"command":"true","description":"nothing"}`)
	return func() time.Duration {
		start := time.Now()
		res, err := def.Execute(context.Background(), args, tc)
		d := time.Since(start)
		if err != nil || res.Metadata["exit"] != 0 {
			b.Fatalf("bash true: %v %v", err, res.Output)
		}
		return d
	}
}
