package main

import (
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/testkit/e2e"
)

func TestHostRunsAProjectsWasmTool(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a wasm module and this program")
	}
	project := t.TempDir()
	os.MkdirAll(filepath.Join(project, ".git"), 0o755)
	toolDir := filepath.Join(project, ".toolhost", "tool")
	os.MkdirAll(toolDir, 0o755)
	// Both from go run's cache: linked once per source state, not once
	// per run.
	module, err := e2e.GoBuild(filepath.Join("..", "json"), []string{"GOOS=wasip1", "GOARCH=wasm", "GOWORK=off"}, "-buildmode=c-shared", ".")
	if err != nil {
		t.Fatalf("build json.wasm: %v", err)
	}
	if err := e2e.CopyFile(module, filepath.Join(toolDir, "json.wasm"), 0o644); err != nil {
		t.Fatal(err)
	}
	bin, err := e2e.GoBuild("", nil, ".")
	if err != nil {
		t.Fatalf("build host: %v", err)
	}
	cmd := exec.Command(bin, "json_query", `{"json": "{\"a\": [1, 2]}", "path": "a.1"}`)
	cmd.Dir = project
	// The project's own tool runs only in a trusted project (docs/security.md,
	// "Project trust"); the test trusts it as CI would.
	cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+t.TempDir(), "XDG_CONFIG_HOME="+t.TempDir(), "XDG_DATA_HOME="+t.TempDir(), "HOME="+t.TempDir(), "TOOLHOST_TRUSTED_PROJECTS="+project)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil || strings.TrimSpace(string(out)) != "2" {
		t.Fatalf("host: %v\n%s\n%s", err, out, stderr.String())
	}
	if !strings.Contains(stderr.String(), "tools offered") {
		t.Errorf("stderr %q does not list the offered tools", stderr.String())
	}
}

// The example is what embedders copy: it must use nothing but the public
// API, package host, the runtime contract and hostfns.
func TestHostUsesOnlyThePublicAPI(t *testing.T) {
	t.Parallel()
	f, err := parser.ParseFile(token.NewFileSet(), "main.go", nil, parser.ImportsOnly)
	if err != nil {
		t.Fatal(err)
	}
	public := map[string]bool{"github.com/toolhost/toolhost/host": true, "github.com/toolhost/toolhost/runtime": true, "github.com/toolhost/toolhost/hostfns": true}
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		if strings.HasPrefix(path, "github.com/toolhost/toolhost") && !public[path] {
			t.Errorf("main.go imports %s; an embedder needs only host, runtime and hostfns", path)
		}
	}
}
