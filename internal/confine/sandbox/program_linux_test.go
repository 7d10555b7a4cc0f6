//go:build linux

package sandbox

import (
	"crypto/sha256"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestMain(m *testing.M) {
	code := m.Run()
	if builtProgram.path != "" {
		os.RemoveAll(filepath.Dir(builtProgram.path))
	}
	os.Exit(code)
}

var builtProgram struct {
	once   sync.Once
	path   string
	marker string // what the program answers to (a test binary has no module versions, so its programMarker differs)
	err    error
}

// helperProgramFor builds cmd/toolhost-sandbox (as released: no cgo) once
// per test binary, or skips where there is no Go toolchain (fails in CI).
func helperProgramFor(t testing.TB) (path, marker string) {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("no go toolchain to build the sandbox helper program")
		}
		t.Skip("no go toolchain to build the sandbox helper program")
	}
	builtProgram.once.Do(func() {
		dir, err := os.MkdirTemp("", "toolhost-sandbox-program")
		if err != nil {
			builtProgram.err = err
			return
		}
		builtProgram.path = filepath.Join(dir, HelperName)
		cmd := exec.Command("go", "build", "-o", builtProgram.path, "github.com/toolhost/toolhost/cmd/toolhost-sandbox")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			builtProgram.err = errors.New(string(out))
			return
		}
		out, err := exec.Command(builtProgram.path, "version").Output()
		builtProgram.marker, builtProgram.err = strings.TrimSpace(string(out)), err
	})
	if builtProgram.err != nil {
		t.Fatalf("build the helper program: %v", builtProgram.err)
	}
	return builtProgram.path, builtProgram.marker
}

// byProgram runs script with sh under p by the helper program program
// with marker, and returns its output.
func byProgram(t *testing.T, program, marker string, p Policy, dir, script string) (string, error) {
	t.Helper()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	env := []string{"PATH=" + os.Getenv("PATH")}
	proc, err := startHelper(program, marker, p, sh, Spawn{Args: []string{"-c", script}, Dir: dir, Stdout: w, Stderr: w}, env)
	w.Close()
	if err != nil {
		return "", err
	}
	out, _ := io.ReadAll(r)
	exit, _, err := proc.Wait()
	if err == nil && exit != 0 {
		err = errors.New("exit status " + string(rune('0'+exit%10)))
	}
	return string(out), err
}

func TestTheHelperProgramConfinesACommandAsToolhostWould(t *testing.T) {
	t.Parallel()
	requireLandlock(t, 1)
	program, marker := helperProgramFor(t)
	dir, outside := t.TempDir(), t.TempDir()
	p := Policy{Writable: append([]string{dir}, Devices...), Network: true}
	out, err := byProgram(t, program, marker, p, dir,
		`echo in > in.txt && cat in.txt; if echo out > `+outside+`/x 2>/dev/null; then echo ESCAPED; fi; env`)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.HasPrefix(out, "in\n") || strings.Contains(out, "ESCAPED") {
		t.Errorf("a command run by the helper program wrote outside its roots or not inside them:\n%s", out)
	}
	if strings.Contains(out, HelperEnv) || strings.Contains(out, HelperArg) {
		t.Errorf("the marker reached the command:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(outside, "x")); err == nil {
		t.Error("the file outside the writable roots was created")
	}
}

func TestAHelperProgramOfAnotherBuildRunsNothing(t *testing.T) {
	t.Parallel()
	requireLandlock(t, 1)
	program, marker := helperProgramFor(t)
	id := strings.TrimPrefix(marker, helperVersion+"+")
	tests := []struct{ name, program, marker string }{
		{"the helper program asked by another build", program, helperVersion + "+0123456789abcdef"},
		{"the helper program asked by another protocol version", program, "1+" + id},
		{"a program that is no helper", "/bin/true", marker},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			p := Policy{Writable: []string{dir}, Network: true}
			out, err := byProgram(t, tt.program, tt.marker, p, dir, `echo ran > ran.txt`)
			if !errors.Is(err, errProgramMismatch) {
				t.Errorf("err = %v, want errProgramMismatch (so that toolhost confines the command itself)\n%s", err, out)
			}
			if _, err := os.Stat(filepath.Join(dir, "ran.txt")); err == nil {
				t.Error("the command ran")
			}
		})
	}
}

func TestTheHelperProgramReportsAShellItCannotStart(t *testing.T) {
	t.Parallel()
	requireLandlock(t, 1)
	program, marker := helperProgramFor(t)
	dir := t.TempDir()
	shell := filepath.Join(dir, "not-a-shell")
	if err := os.WriteFile(shell, []byte("neither ELF nor #!"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := startHelper(program, marker, Policy{Writable: []string{dir}, Network: true}, shell, Spawn{}, nil)
	var he *HelperError
	if !errors.As(err, &he) || errors.Is(err, errProgramMismatch) || !strings.Contains(err.Error(), "not-a-shell") {
		t.Errorf("err = %v, want the program's *HelperError naming the shell", err)
	}
}

func TestOnlyAHelperProgramAsTrustedAsToolhostIsUsed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	self := filepath.Join(dir, "toolhost")
	mk := func(name string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil { // past the umask
			t.Fatal(err)
		}
		return p
	}
	mk("toolhost", 0o755)
	if err := os.Symlink(mk("elsewhere", 0o755), filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path string
		ok         bool
	}{
		{"an executable file of toolhost's owner and modes", mk("good", 0o755), true},
		{"a read-only one", mk("readonly", 0o555), true},
		{"a link", filepath.Join(dir, "link"), false},
		{"one writable by the group", mk("group", 0o775), false},
		{"one writable by everyone", mk("world", 0o757), false},
		{"one not executable", mk("plain", 0o644), false},
		{"a directory", filepath.Join(dir), false},
		{"a missing one", filepath.Join(dir, "missing"), false},
	}
	for _, tt := range tests {
		if err := trustedProgram(tt.path, self); (err == nil) != tt.ok {
			t.Errorf("%s: trustedProgram = %v, want ok %v", tt.name, err, tt.ok)
		}
	}
	if os.Geteuid() == 0 {
		other := mk("other-owner", 0o755)
		if err := os.Chown(other, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		if err := trustedProgram(other, self); err == nil {
			t.Error("a helper program of another owner was trusted")
		}
	}
}

// BenchmarkHelperProgram compares starting `true` plainly, under the
// sandbox by the helper program, and by re-executing this (large) test
// binary: what `toolhost call bash` pays per command. Read the program's
// and self's ns/op against plain's, run in the same alternation.
func BenchmarkHelperProgram(b *testing.B) {
	if abi, err := Available(); err != nil || abi < 1 {
		b.Skip("no Landlock")
	}
	program, marker := helperProgramFor(b)
	self, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	home, _ := os.UserHomeDir()
	p := Policy{Writable: append([]string{dir}, Devices...), Hidden: HomeSecrets(home, nil), Network: true}
	truePath, err := exec.LookPath("true")
	if err != nil {
		b.Fatal(err)
	}
	env := []string{"PATH=" + os.Getenv("PATH")}
	run := map[string]func() error{
		"plain": func() error { return exec.Command(truePath).Run() },
		"program": func() error {
			proc, err := startHelper(program, marker, p, truePath, Spawn{}, env)
			if err != nil {
				return err
			}
			_, _, err = proc.Wait()
			return err
		},
		"self": func() error {
			proc, err := startHelper(self, helperVersion, p, truePath, Spawn{}, env)
			if err != nil {
				return err
			}
			_, _, err = proc.Wait()
			return err
		},
	}
	names := []string{"plain", "program", "self"}
	total := map[string]time.Duration{}
	for _, n := range names { // warm: the plan, the page cache
		if err := run[n](); err != nil {
			b.Fatal(n, err)
		}
	}
	for b.Loop() {
		for _, n := range names {
			start := time.Now()
			if err := run[n](); err != nil {
				b.Fatal(n, err)
			}
			total[n] += time.Since(start)
		}
	}
	for _, n := range names {
		b.ReportMetric(float64(total[n].Microseconds())/1000/float64(b.N), n+"-ms")
	}
	b.ReportMetric(float64((total["program"]-total["plain"]).Microseconds())/1000/float64(b.N), "program-gap-ms")
	b.ReportMetric(0, "ns/op")
}

// zygoteOf returns the zygote that runs p's commands.
func zygoteOf(t *testing.T, p Policy) *zygote {
	t.Helper()
	enc, err := helperArgsFor(p, CachedPlan(p)).encode()
	if err != nil {
		t.Fatal(err)
	}
	zygotes.Lock()
	defer zygotes.Unlock()
	z := zygotes.m[sha256.Sum256([]byte(enc))]
	if z == nil {
		t.Fatal("no zygote for the plan")
	}
	return z
}

// Not parallel: it swaps which helper program this process finds and
// what build it is.
func TestZygotesAreTheHelperProgramOfThisBuildOnly(t *testing.T) {
	requireLandlock(t, MinScopeABI)
	program, marker := helperProgramFor(t)
	oldProgram, oldIdentity := helperProgram, identity
	t.Cleanup(func() {
		helperProgram, identity = oldProgram, oldIdentity
		programMismatched.Store(false)
	})
	helperProgram = func() string { return program }

	// The same build (as a release's toolhost and program are).
	identity = func() string { return strings.TrimPrefix(marker, helperVersion+"+") }
	p, dir := zygotePolicy(t)
	if out := mustRun(t, p, dir, `echo in > in.txt; cat in.txt`); out != "in" {
		t.Fatalf("output %q", out)
	}
	if z := zygoteOf(t, p); !z.program || z.path != program {
		t.Errorf("the zygote is %s (program %v), want the helper program", z.path, z.program)
	}

	// Another build's program: the command runs all the same, confined
	// by this binary re-executed, and the program is not asked again.
	identity = func() string { return "another build" }
	p, dir = zygotePolicy(t)
	outside := t.TempDir()
	out := mustRun(t, p, dir, `echo in > in.txt; cat in.txt; (echo x > `+outside+`/x) 2>/dev/null || echo refused`)
	if out != "in\nrefused" {
		t.Errorf("output %q, want the write inside done and the one outside refused", out)
	}
	if z := zygoteOf(t, p); z.program {
		t.Error("a helper program of another build runs commands")
	}
	if !programMismatched.Load() {
		t.Error("the mismatch was not remembered")
	}
	if z, err := startZygote(); err != nil || z.program {
		t.Errorf("after a mismatch a zygote was started from the program (%v)", err)
	} else {
		z.close()
	}
}
