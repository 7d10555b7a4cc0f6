package mcp_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// binary is the toolhost command, built once for the tests that drive it:
// stdio serving, and MCP client tests that use it as a server.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "toolhost-mcp-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "toolhost")
	cmd := exec.Command("go", "build", "-o", binary, "../cmd/toolhost")
	if out, err := cmd.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build toolhost: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// project is a fresh user and project for the built binary: empty home and
// XDG directories, a project with a .git marker and the given toolhost.json.
type project struct {
	t    testing.TB
	home string
	dir  string
}

func newProject(t testing.TB, toolhostJSON string) *project {
	t.Helper()
	root := t.TempDir()
	p := &project{t: t, home: filepath.Join(root, "home"), dir: filepath.Join(root, "project")}
	for _, d := range []string{p.home, filepath.Join(p.dir, ".git")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if toolhostJSON != "" {
		p.write("toolhost.json", toolhostJSON)
	}
	return p
}

func (p *project) write(rel, content string) string {
	p.t.Helper()
	path := filepath.Join(p.dir, rel)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		p.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		p.t.Fatal(err)
	}
	return path
}

// env is the environment the binary runs with: only PATH from ours.
func (p *project) env() []string {
	return []string{
		"HOME=" + p.home,
		"PATH=" + os.Getenv("PATH"),
		"XDG_CONFIG_HOME=" + filepath.Join(p.home, ".config"),
		"XDG_DATA_HOME=" + filepath.Join(p.home, ".local/share"),
		"XDG_CACHE_HOME=" + filepath.Join(p.home, ".cache"),
	}
}

// command returns the binary with args, run in the project.
func (p *project) command(args ...string) *exec.Cmd {
	cmd := exec.Command(binary, args...)
	cmd.Dir = p.dir
	cmd.Env = p.env()
	return cmd
}

// run runs the binary to completion: stdout, stderr, exit code.
func (p *project) run(args ...string) (string, string, int) {
	p.t.Helper()
	cmd := p.command(args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		p.t.Fatalf("run %s: %v", strings.Join(args, " "), err)
	}
	return out.String(), errb.String(), code
}
