// Package e2e drives the built toolhost binary as a user would: it builds
// cmd/toolhost into go run's cache (linked once per source state, whichever
// test process asks first) and gives each test a fresh user (empty home and
// XDG directories) and project (a directory with a .git marker). The CLI,
// MCP and agent-loop end-to-end tests share it; GoBuild builds their Go
// test guests the same way.
package e2e

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/toolhost/toolhost/internal/testkit/compiled"
)

var build struct {
	once sync.Once
	dir  string
	path string
	err  error
}

// mainPackage is the binary the tests drive.
const mainPackage = "github.com/toolhost/toolhost/cmd/toolhost"

// Binary returns the path of the toolhost binary, building it on first use
// (with the build tags in TOOLHOST_E2E_TAGS, if set), and the sandbox
// helper program (cmd/toolhost-sandbox) beside it.
// Call Cleanup from TestMain after m.Run to remove it.
//
// The binary is the one `go run` keeps in the build cache: linking it takes
// tens of seconds of the two cores `go test ./...` has, and `go build -o`
// links again in every test process (five packages drive the binary) and
// every run, while `go run` links once per source state and hands every
// later process the cached file. `go run -exec echo` reports that file's
// path instead of running it. Without an echo program the binary is built
// into a temporary folder as before.
func Binary(t testing.TB) string {
	t.Helper()
	build.once.Do(func() {
		var tags []string
		// TOOLHOST_E2E_TAGS builds the binary with build tags, such as
		// "pprof" (cmd/toolhost/pprof.go) to profile it under a test.
		if v := os.Getenv("TOOLHOST_E2E_TAGS"); v != "" {
			tags = []string{"-tags", v}
		}
		if echo, err := exec.LookPath("echo"); err == nil {
			build.path, build.err = cachedBinary(echo, tags)
			return
		}
		build.dir, build.err = os.MkdirTemp("", "toolhost-e2e")
		if build.err != nil {
			return
		}
		build.path = filepath.Join(build.dir, "toolhost")
		args := append(append([]string{"build", "-o", build.path}, tags...), mainPackage)
		if out, err := exec.Command("go", args...).CombinedOutput(); err != nil {
			build.err = fmt.Errorf("build toolhost: %w\n%s", err, out)
			return
		}
		// The sandbox helper program beside it, as a release ships it
		// (without cgo): bash's commands are confined by it.
		helper := exec.Command("go", "build", "-o", filepath.Join(build.dir, "toolhost-sandbox"), "github.com/toolhost/toolhost/cmd/toolhost-sandbox")
		helper.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := helper.CombinedOutput(); err != nil {
			build.err = fmt.Errorf("build toolhost-sandbox: %w\n%s", err, out)
		}
	})
	if build.err != nil {
		t.Fatal(build.err)
	}
	return build.path
}

// cachedBinary builds the toolhost binary and the sandbox helper program
// into go run's cache and puts the two side by side in a folder of their
// own (build.dir), hard-linked where the file system allows: toolhost
// uses the helper only from its own directory.
func cachedBinary(echo string, tags []string) (string, error) {
	path, err := goRun(echo, "", nil, append(tags, mainPackage)...)
	if err != nil {
		return "", fmt.Errorf("build toolhost: %w", err)
	}
	// Without cgo, as a release ships it.
	helper, err := goRun(echo, "", []string{"CGO_ENABLED=0"}, "github.com/toolhost/toolhost/cmd/toolhost-sandbox")
	if err != nil {
		return "", fmt.Errorf("build toolhost-sandbox: %w", err)
	}
	if build.dir, err = os.MkdirTemp("", "toolhost-e2e"); err != nil {
		return "", err
	}
	for _, f := range [][2]string{{path, "toolhost"}, {helper, "toolhost-sandbox"}} {
		dst := filepath.Join(build.dir, f[1])
		if os.Link(f[0], dst) != nil {
			if err := CopyFile(f[0], dst, 0o755); err != nil {
				return "", err
			}
		}
	}
	return filepath.Join(build.dir, "toolhost"), nil
}

// GoBuild builds the Go main package pkg ("." or a path) in dir, with env
// added to ours (GOOS=wasip1 GOARCH=wasm for a guest) and flags such as
// -buildmode=c-shared, and returns the path of the executable or module
// in the build cache, as Binary does: a later test process or run gets
// the same file without linking again. The file is shared: copy it
// before changing it.
func GoBuild(dir string, env []string, flagsAndPkg ...string) (string, error) {
	echo, err := exec.LookPath("echo")
	if err != nil {
		return "", fmt.Errorf("go run -exec needs an echo program: %w", err)
	}
	return goRun(echo, dir, env, flagsAndPkg...)
}

// goRun builds with `go run -exec echo` and returns the path echo
// printed: the executable in the build cache. A `go run` that links hands
// the program its temporary link output (removed when go run exits) and
// caches a copy, so a path that is gone by then is asked for again, and
// the second answer is the cached copy.
func goRun(echo, dir string, env []string, flagsAndPkg ...string) (string, error) {
	args := append([]string{"run", "-exec", echo}, flagsAndPkg...)
	var path string
	for range 2 {
		var stdout, stderr bytes.Buffer
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), env...)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			return "", fmt.Errorf("go %s: %w\n%s%s", strings.Join(args, " "), err, stdout.Bytes(), stderr.Bytes())
		}
		path = strings.TrimSpace(stdout.String())
		if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() {
			return path, nil
		}
	}
	return "", fmt.Errorf("go %s printed %q, which is not a file (is GOCACHE off?)", strings.Join(args, " "), path)
}

// CopyFile copies the file src to dst with mode perm (a module from
// GoBuild into a project, where a test may change it).
func CopyFile(src, dst string, perm os.FileMode) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return os.WriteFile(dst, b, perm)
}

// Cleanup removes the binary if Binary built it outside the build cache.
func Cleanup() {
	if build.dir != "" {
		os.RemoveAll(build.dir)
	}
}

// Project is a fresh user and project for the binary.
type Project struct {
	T    testing.TB
	Bin  string
	Home string
	Dir  string
	// Env holds extra KEY=value pairs for every command.
	Env []string
}

// NewProject makes a fresh user home and project directory.
func NewProject(t testing.TB) *Project {
	t.Helper()
	root := t.TempDir()
	p := &Project{T: t, Bin: Binary(t), Home: filepath.Join(root, "home"), Dir: filepath.Join(root, "project")}
	for _, d := range []string{p.Home, filepath.Join(p.Dir, ".git")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

// ShareCompiled gives the fresh user the machine's compiled wasm and JS
// code (internal/testkit/compiled) instead of an empty compilation cache:
// for a test that loads wasm or JS tools but does not test compiling
// them, each of whose processes compiled the same guest again. A test of
// a first compile, its progress line or the cache it fills does not call
// it.
func (p *Project) ShareCompiled() {
	p.T.Helper()
	compiled.Link(p.T, filepath.Join(p.Home, ".cache", "toolhost"))
}

// Write creates a file (and its directories) in the project and returns its
// path.
func (p *Project) Write(rel, content string) string {
	p.T.Helper()
	path := filepath.Join(p.Dir, rel)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		p.T.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		p.T.Fatal(err)
	}
	return path
}

// Environ is the environment the binary runs with: the fresh user's
// directories, PATH from ours, the project trusted (TOOLHOST_TRUSTED_PROJECTS;
// a test of trust itself sets it empty in Env), Go's build cache from ours,
// and Env (a later KEY=value wins over an earlier one).
//
// GOCACHE is the toolchain's, not the user's toolhost state: without it
// every `toolhost tool build` of a Go tool in a fresh home compiles Go's
// standard library for wasip1 from nothing (minutes of CPU per test on two
// cores). A test of a first build on a cold Go cache sets GOCACHE in Env.
func (p *Project) Environ() []string {
	env := []string{
		"TOOLHOST_TRUSTED_PROJECTS=" + p.Dir,
		"HOME=" + p.Home,
		"PATH=" + os.Getenv("PATH"),
		"XDG_CONFIG_HOME=" + filepath.Join(p.Home, ".config"),
		"XDG_DATA_HOME=" + filepath.Join(p.Home, ".local/share"),
		"XDG_CACHE_HOME=" + filepath.Join(p.Home, ".cache"),
	}
	if dir := goCache(); dir != "" {
		env = append(env, "GOCACHE="+dir)
	}
	return append(env, p.Env...)
}

// goCache is the Go build cache of the go command on PATH ("" when there
// is none, or the cache is off).
var goCache = sync.OnceValue(func() string {
	out, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		return ""
	}
	dir := strings.TrimSpace(string(out))
	if dir == "off" {
		return ""
	}
	return dir
})

// Command returns the binary with args, to run in the project.
func (p *Project) Command(args ...string) *exec.Cmd {
	cmd := exec.Command(p.Bin, args...)
	cmd.Dir = p.Dir
	cmd.Env = p.Environ()
	return cmd
}

// Run runs the binary with stdin to completion and returns stdout, stderr
// and the exit code.
func (p *Project) Run(stdin string, args ...string) (string, string, int) {
	p.T.Helper()
	cmd := p.Command(args...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		p.T.Fatalf("run toolhost %s: %v", strings.Join(args, " "), err)
	}
	return out.String(), errb.String(), code
}
