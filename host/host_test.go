package host

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/testkit/compiled"
)

func newProject(t testing.TB) (string, func(string) string) {
	t.Helper()
	root := t.TempDir()
	project := filepath.Join(root, "project")
	if err := os.MkdirAll(filepath.Join(project, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	compiled.Link(t, filepath.Join(root, "cache", "toolhost"))
	env := map[string]string{
		"HOME":            filepath.Join(root, "home"),
		"XDG_CONFIG_HOME": filepath.Join(root, "config"),
		"XDG_CACHE_HOME":  filepath.Join(root, "cache"),
		// The tests' own projects are trusted; trust_test.go clears it.
		"TOOLHOST_TRUSTED_PROJECTS": project,
	}
	return project, func(k string) string { return env[k] }
}

// testCache is a fresh toolhost cache folder whose compiled code is the
// machine's shared one (internal/testkit/compiled): the tests here check
// loading, watching and grants, not the compiler, which took 60 % of
// their CPU when each compiled the same modules into its own folder.
func testCache(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	compiled.Link(t, dir)
	return dir
}

func TestNewAssemblesBuiltinsAndAppliesProjectConfig(t *testing.T) {
	t.Parallel()
	project, env := newProject(t)
	if err := os.WriteFile(filepath.Join(project, "toolhost.json"), []byte(`{"tools": {"webfetch": false}, "experimental": {"batch_tool": true}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	h, err := New(ctx, Options{Directory: project, Env: env, DataDir: t.TempDir(), CacheDir: testCache(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(ctx)
	if h.Worktree != project {
		t.Errorf("worktree = %s, want %s", h.Worktree, project)
	}
	tools, err := h.Tools(ctx, "", "")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, ti := range tools {
		ids = append(ids, ti.ID)
	}
	for _, want := range []string{"read", "edit", "bash", "grep", "batch"} {
		if !slices.Contains(ids, want) {
			t.Errorf("tools lack %s: %v", want, ids)
		}
	}
	if slices.Contains(ids, "webfetch") {
		t.Errorf("webfetch disabled by project config but offered: %v", ids)
	}
	// task runs subagents through an agent loop, a front end host does
	// not import: the front end that has one adds it.
	if slices.Contains(ids, "task") {
		t.Errorf("host offers task without an agent loop: %v", ids)
	}
}

func TestHostImportsNoFrontEnd(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, front := range []string{"/agent", "/internal/cli", "/mcp/server"} {
			if dep == "github.com/toolhost/toolhost"+front {
				t.Errorf("host depends on the front end %s", dep)
			}
		}
	}
}
