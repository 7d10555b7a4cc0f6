package client_test

import (
	"os"
	"os/exec"
	"testing"

	"github.com/toolhost/toolhost/internal/testkit/e2e"
)

func TestMain(m *testing.M) {
	code := m.Run()
	e2e.Cleanup()
	os.Exit(code)
}

// project is a fresh user and project for the built binary (stdio serving,
// and MCP client tests that use it as a server), with the given
// toolhost.json.
type project struct {
	*e2e.Project
	dir string
}

func newProject(t testing.TB, toolhostJSON string) *project {
	t.Helper()
	p := &project{Project: e2e.NewProject(t)}
	p.dir = p.Dir
	if toolhostJSON != "" {
		p.Write("toolhost.json", toolhostJSON)
	}
	return p
}

func (p *project) write(rel, content string) string { return p.Write(rel, content) }

// env is the environment the binary runs with: only PATH from ours.
func (p *project) env() []string { return p.Environ() }

// command returns the binary with args, run in the project.
func (p *project) command(args ...string) *exec.Cmd { return p.Command(args...) }

// run runs the binary to completion: stdout, stderr, exit code.
func (p *project) run(args ...string) (string, string, int) {
	p.T.Helper()
	return p.Run("", args...)
}
