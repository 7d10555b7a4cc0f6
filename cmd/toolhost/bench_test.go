package main_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/internal/confine/sandbox"
	"github.com/toolhost/toolhost/internal/testkit/e2e"
)

// BenchmarkStart times whole processes of the built binary, as a user
// waits for them (issue 13, target 1 and 2), against the floor in the same
// run: a Go program that prints one line and exits. Run it with
//
//	go test ./cmd/toolhost -run '^$' -bench Start -benchtime 10x
//
// and read best-ms (the best of the runs, as `hyperfine` reports min);
// ns/op is the mean, which a busy machine inflates. tools-cold-section
// lists 20 Go-built modules prepared by `toolhost tool build` (toolhost.tools
// section) with every cache removed before each run.
func BenchmarkStart(b *testing.B) {
	p := e2e.NewProject(b)
	floor := helloBinary(b)
	twentyBuiltModules(b, p)
	cache := filepath.Join(p.Home, ".cache", "toolhost")

	run := func(b *testing.B, before func(), name string, args ...string) {
		best := time.Duration(1 << 62)
		for b.Loop() {
			if before != nil {
				b.StopTimer()
				before()
				b.StartTimer()
			}
			cmd := p.Command(args...)
			if name != "" {
				cmd = exec.Command(name, args...)
			}
			start := time.Now()
			out, err := cmd.CombinedOutput()
			d := time.Since(start)
			if err != nil {
				b.Fatalf("%v: %v\n%s", args, err, out)
			}
			best = min(best, d)
		}
		b.ReportMetric(float64(best.Microseconds())/1000, "best-ms")
	}
	b.Run("hello-floor", func(b *testing.B) { run(b, nil, floor) })
	b.Run("version", func(b *testing.B) { run(b, nil, "", "version") })
	p.Command("tools").Run() // warm the description cache
	b.Run("tools-warm-20", func(b *testing.B) { run(b, nil, "", "tools") })
	b.Run("tools-cold-section-20", func(b *testing.B) {
		run(b, func() { os.RemoveAll(cache) }, "", "tools")
	})
}

// helloBinary builds the smallest useful Go program: the start-up floor.
func helloBinary(b *testing.B) string {
	dir := b.TempDir()
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module hello\n\ngo 1.24\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\nimport \"os\"\n\nfunc main() { os.Stdout.WriteString(\"toolhost dev\\n\") }\n"), 0o644)
	cmd := exec.Command("go", "build", "-o", "hello", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("build the floor: %v\n%s", err, out)
	}
	return filepath.Join(dir, "hello")
}

// twentyBuiltModules builds one Go tool with `toolhost tool build` and
// copies it to 20 names in the user's tool folder, each made distinct (its own sha256) by a trailing
// custom section, as 20 separately built tools would be.
func twentyBuiltModules(b *testing.B, p *e2e.Project) {
	for _, args := range [][]string{{"tool", "new", "bench"}, {"tool", "build"}} {
		if out, err := p.Command(args...).CombinedOutput(); err != nil {
			b.Fatalf("%v: %v\n%s", args, err, out)
		}
	}
	toolDir := filepath.Join(p.Dir, ".toolhost", "tool")
	data, err := os.ReadFile(filepath.Join(toolDir, "bench.wasm"))
	if err != nil {
		b.Fatal(err)
	}
	os.Remove(filepath.Join(toolDir, "bench.wasm"))
	os.RemoveAll(filepath.Join(p.Dir, ".toolhost", "tools-src"))
	// The copies go to the user's tool folder: 20 modules of 3.4 MB in the
	// project would be more than project trust hashes (64 MiB), and an
	// untrusted project's tools are not listed.
	toolDir = filepath.Join(p.Home, ".config", "toolhost", "tool")
	if err := os.MkdirAll(toolDir, 0o755); err != nil {
		b.Fatal(err)
	}
	for i := range 20 {
		name := fmt.Sprintf("bench%02d", i)
		section := "toolhost-bench"
		payload := append([]byte{byte(len(section))}, section+name...)
		mod := append(append(append([]byte{}, data...), 0, byte(len(payload))), payload...)
		if err := os.WriteFile(filepath.Join(toolDir, name+".wasm"), mod, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	out, err := p.Command("tools").CombinedOutput()
	if err != nil || strings.Count(string(out), "bench") < 20 {
		b.Fatalf("tools: %v\n%s", err, out)
	}
}

// BenchmarkCallStart measures issue 32's target 2: `toolhost call` of a
// built-in within 5 ms of `toolhost version`, and `version` ≤ 10 ms. One
// fresh project (no tools of its own); each iteration runs the floor,
// `version`, `call todoread '{}'` and `call read` of a one-line file in
// turn, so a load that comes and goes weighs on every side alike. Run it
// with
//
//	go test ./cmd/toolhost -run '^$' -bench CallStart -benchtime 20x
//
// and read best-ms of each side and gap-ms (best call − best version).
// TOOLHOST_BENCH_BEFORE=/path/to/an/older/toolhost adds that binary's
// version and calls to the same alternation (before-*), in a project of
// its own, to compare two builds within one run.
func BenchmarkCallStart(b *testing.B) {
	p := e2e.NewProject(b)
	floor := helloBinary(b)
	if err := os.WriteFile(filepath.Join(p.Dir, "small.txt"), []byte("one line\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	type side struct {
		name string
		cmd  func() *exec.Cmd
	}
	sides := []side{
		{"hello-floor", func() *exec.Cmd { return exec.Command(floor) }},
		{"version", func() *exec.Cmd { return p.Command("version") }},
		{"call-todoread", func() *exec.Cmd { return p.Command("call", "todoread", "{}") }},
		{"call-read", func() *exec.Cmd { return p.Command("call", "read", `{"filePath":"small.txt"}`) }},
	}
	if before := os.Getenv("TOOLHOST_BENCH_BEFORE"); before != "" {
		q := e2e.NewProject(b)
		q.Bin = before
		if err := os.WriteFile(filepath.Join(q.Dir, "small.txt"), []byte("one line\n"), 0o644); err != nil {
			b.Fatal(err)
		}
		sides = append(sides,
			side{"before-version", func() *exec.Cmd { return q.Command("version") }},
			side{"before-call-todoread", func() *exec.Cmd { return q.Command("call", "todoread", "{}") }},
			side{"before-call-read", func() *exec.Cmd { return q.Command("call", "read", `{"filePath":"small.txt"}`) }})
	}
	for _, s := range sides[1:] { // the session store exists before timing
		if out, err := s.cmd().CombinedOutput(); err != nil {
			b.Fatalf("%s: %v\n%s", s.name, err, out)
		}
	}
	best := make([]time.Duration, len(sides))
	for i := range best {
		best[i] = 1 << 62
	}
	for b.Loop() {
		for i, s := range sides {
			cmd := s.cmd()
			start := time.Now()
			out, err := cmd.CombinedOutput()
			d := time.Since(start)
			if err != nil {
				b.Fatalf("%s: %v\n%s", s.name, err, out)
			}
			best[i] = min(best[i], d)
		}
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	for i, s := range sides {
		b.ReportMetric(ms(best[i]), s.name+"-best-ms")
	}
	b.ReportMetric(ms(best[2]-best[1]), "todoread-gap-ms")
	b.ReportMetric(ms(best[3]-best[1]), "read-gap-ms")
	if len(best) > 4 {
		b.ReportMetric(ms(best[5]-best[4]), "before-todoread-gap-ms")
	}
	b.ReportMetric(0, "ns/op")
}

// BenchmarkCallBashSandbox measures issue 32's target 1 from the command
// line: `toolhost call bash` of `true` under the Landlock sandbox against
// the same call with the sandbox off, rotating which runs first in each
// iteration. Run it with
//
//	go test ./cmd/toolhost -run '^$' -bench CallBashSandbox -benchtime 20x
//
// and read gap-best-ms and gap-mean-ms (sandboxed − plain), and
// gap-median-ms, the median of each iteration's own difference: the two
// calls of one iteration run back to back, so a busy machine slows both.
// TOOLHOST_BENCH_BEFORE=/path/to/an/older/toolhost adds that binary's two
// calls to the rotation (before-*).
func BenchmarkCallBashSandbox(b *testing.B) {
	if _, err := sandbox.Available(); err != nil {
		b.Skip(err)
	}
	// The home and the temporary directory outside the shared /tmp:
	// credential locations and toolhost's state beneath it would make
	// every call carve /tmp's entries one by one (see package sandbox),
	// which on a shared machine costs seconds and is not what is measured.
	project := func(bin, config string) *e2e.Project {
		root, err := os.MkdirTemp("/var/tmp", "toolhost-bench")
		if err != nil {
			b.Skip(err)
		}
		b.Cleanup(func() { os.RemoveAll(root) })
		p := &e2e.Project{T: b, Bin: e2e.Binary(b), Home: filepath.Join(root, "home"), Dir: filepath.Join(root, "project")}
		if bin != "" {
			p.Bin = bin
		}
		for _, d := range []string{p.Home, filepath.Join(p.Dir, ".git"), filepath.Join(root, "tmp")} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				b.Fatal(err)
			}
		}
		p.Write("toolhost.json", config)
		p.Env = append(p.Env, "TMPDIR="+filepath.Join(root, "tmp"))
		return p
	}
	const on, off = `{"permission": {"bash": "allow"}}`, `{"permission": {"bash": "allow"}, "sandbox": {"enabled": false}}`
	names := []string{"sandboxed", "plain"}
	sides := []*e2e.Project{project("", on), project("", off)}
	if before := os.Getenv("TOOLHOST_BENCH_BEFORE"); before != "" {
		names = append(names, "before-sandboxed", "before-plain")
		sides = append(sides, project(before, on), project(before, off))
	}
	args := []string{"call", "bash", `{"command":"true","description":"nothing"}`}
	best, total := make([]time.Duration, len(sides)), make([]time.Duration, len(sides))
	diffs := make([][]time.Duration, len(sides)/2) // sandboxed − plain, per iteration
	cpus := make([][]time.Duration, len(sides))    // user + sys of the call and what it started
	cpuDiffs := make([][]time.Duration, len(sides)/2)
	for i, p := range sides { // the session store exists before timing
		best[i] = 1 << 62
		if out, err := p.Command(args...).CombinedOutput(); err != nil {
			b.Fatalf("%v\n%s", err, out)
		}
	}
	n := 0
	took, cpu := make([]time.Duration, len(sides)), make([]time.Duration, len(sides))
	for b.Loop() {
		for k := range sides {
			i := (k + n) % len(sides)
			cmd := sides[i].Command(args...)
			start := time.Now()
			out, err := cmd.CombinedOutput()
			d := time.Since(start)
			if err != nil {
				b.Fatalf("%v\n%s", err, out)
			}
			best[i], total[i], took[i] = min(best[i], d), total[i]+d, d
			// The process's own and its reaped children's (the helper
			// that became the shell): what the call cost the machine.
			cpu[i] = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
			cpus[i] = append(cpus[i], cpu[i])
		}
		for j := range diffs {
			diffs[j] = append(diffs[j], took[2*j]-took[2*j+1])
			cpuDiffs[j] = append(cpuDiffs[j], cpu[2*j]-cpu[2*j+1])
		}
		n++
	}
	median := func(d []time.Duration) time.Duration {
		slices.Sort(d)
		return d[len(d)/2]
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	for i, name := range names {
		b.ReportMetric(ms(best[i]), name+"-best-ms")
		b.ReportMetric(ms(total[i]/time.Duration(n)), name+"-mean-ms")
		b.ReportMetric(ms(median(cpus[i])), name+"-cpu-median-ms")
	}
	for i := 0; i < len(sides); i += 2 {
		prefix := strings.TrimSuffix(names[i], "sandboxed")
		b.ReportMetric(ms(best[i]-best[i+1]), prefix+"gap-best-ms")
		b.ReportMetric(ms((total[i]-total[i+1])/time.Duration(n)), prefix+"gap-mean-ms")
		b.ReportMetric(ms(median(diffs[i/2])), prefix+"gap-median-ms")
		b.ReportMetric(ms(median(cpuDiffs[i/2])), prefix+"cpu-gap-median-ms")
	}
	b.ReportMetric(0, "ns/op")
}
