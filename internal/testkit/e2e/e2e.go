// Package e2e drives the built toolhost binary as a user would: it builds
// cmd/toolhost once per test process and gives each test a fresh user (empty
// home and XDG directories) and project (a directory with a .git marker).
// The CLI, MCP and agent-loop end-to-end tests share it.
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
)

var build struct {
	once sync.Once
	dir  string
	path string
	err  error
}

// Binary returns the path of the toolhost binary, building it on first use
// (with the build tags in TOOLHOST_E2E_TAGS, if set), and the sandbox
// helper program (cmd/toolhost-sandbox) beside it.
// Call Cleanup from TestMain after m.Run to remove it.
func Binary(t testing.TB) string {
	t.Helper()
	build.once.Do(func() {
		build.dir, build.err = os.MkdirTemp("", "toolhost-e2e")
		if build.err != nil {
			return
		}
		build.path = filepath.Join(build.dir, "toolhost")
		args := []string{"build", "-o", build.path}
		// TOOLHOST_E2E_TAGS builds the binary with build tags, such as
		// "pprof" (cmd/toolhost/pprof.go) to profile it under a test.
		if tags := os.Getenv("TOOLHOST_E2E_TAGS"); tags != "" {
			args = append(args, "-tags", tags)
		}
		out, err := exec.Command("go", append(args, "github.com/toolhost/toolhost/cmd/toolhost")...).CombinedOutput()
		if err != nil {
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

// Cleanup removes the built binary.
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
// a test of trust itself sets it empty in Env), and Env.
func (p *Project) Environ() []string {
	return append([]string{
		"TOOLHOST_TRUSTED_PROJECTS=" + p.Dir,
		"HOME=" + p.Home,
		"PATH=" + os.Getenv("PATH"),
		"XDG_CONFIG_HOME=" + filepath.Join(p.Home, ".config"),
		"XDG_DATA_HOME=" + filepath.Join(p.Home, ".local/share"),
		"XDG_CACHE_HOME=" + filepath.Join(p.Home, ".cache"),
	}, p.Env...)
}

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
