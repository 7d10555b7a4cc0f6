package server_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// The third-party MCP servers the tests use, pinned so that a run is
// repeatable and the install cache key is stable.
var npmPackages = []string{
	"@modelcontextprotocol/server-everything@2026.8.31",
	"@modelcontextprotocol/server-filesystem@2026.8.31",
}

var (
	npmOnce sync.Once
	npmDir  string
	npmErr  error
)

// npmServers installs npmPackages once per machine, under
// $TMPDIR/toolhost-npm/<hash of the package list>, and returns that
// directory. Without npm the test is skipped, except in CI (CI=true), where
// a missing npm is a failure.
func npmServers(tb testing.TB) string {
	tb.Helper()
	if _, err := exec.LookPath("npm"); err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("npm is needed for the third-party MCP server tests in CI: %v", err)
		}
		tb.Skipf("npm not found (%v); install Node.js to run the tests against third-party MCP servers", err)
	}
	npmOnce.Do(func() { npmDir, npmErr = installNPM() })
	if npmErr != nil {
		tb.Fatal(npmErr)
	}
	return npmDir
}

func installNPM() (string, error) {
	sum := sha256.Sum256([]byte(strings.Join(npmPackages, "\n")))
	dir := filepath.Join(os.TempDir(), "toolhost-npm", hex.EncodeToString(sum[:6]))
	if _, err := os.Stat(filepath.Join(dir, "installed")); err == nil {
		return dir, nil
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", err
	}
	// Install beside and rename into place, so concurrent test processes
	// never see a half-installed tree.
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "install-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	args := append([]string{"install", "--no-audit", "--no-fund", "--loglevel=error", "--prefix", tmp}, npmPackages...)
	if out, err := exec.Command("npm", args...).CombinedOutput(); err != nil {
		return "", fmt.Errorf("npm %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	if err := os.WriteFile(filepath.Join(tmp, "installed"), nil, 0o644); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, serr := os.Stat(filepath.Join(dir, "installed")); serr == nil {
			return dir, nil // another process won the race
		}
		return "", fmt.Errorf("move npm install into place: %w", err)
	}
	return dir, nil
}

func npmBin(dir, name string) string { return filepath.Join(dir, "node_modules", ".bin", name) }

func TestToolhostUsesThirdPartyServersFromNPM(t *testing.T) {
	t.Parallel()
	dir := npmServers(t)
	p := newProject(t, "")
	p.write("docs/guide.txt", "a guide for the filesystem server\n")
	cfg, _ := json.Marshal(map[string]any{"mcp": map[string]any{
		"everything": map[string]any{"type": "local", "command": []string{npmBin(dir, "mcp-server-everything")}, "timeout": 30000},
		"fs":         map[string]any{"type": "local", "command": []string{npmBin(dir, "mcp-server-filesystem"), p.dir}, "timeout": 30000},
	}})
	p.write("toolhost.json", string(cfg))
	tests := []struct {
		name       string
		tool, args string
		wantOut    string
		wantStderr string
	}{
		{"echo echoes", "everything_echo", `{"message":"hello from toolhost"}`, "Echo: hello from toolhost", ""},
		{"add adds", "everything_get-sum", `{"a":19,"b":23}`, "42", ""},
		{"a long-running tool reports progress", "everything_trigger-long-running-operation", `{"duration":1,"steps":3}`, "Long running operation completed", `"total":3`},
		{"an image becomes an attachment", "everything_get-tiny-image", `{}`, `"mime": "image/png"`, ""},
		{"the filesystem server reads a file", "fs_read_text_file", `{"path":"` + filepath.Join(p.dir, "docs", "guide.txt") + `"}`, "a guide for the filesystem server", ""},
		{"the filesystem server lists a directory", "fs_list_directory", `{"path":"` + filepath.Join(p.dir, "docs") + `"}`, "[FILE] guide.txt", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out, stderr, code := p.run("call", tt.tool, tt.args, "--json")
			if code != 0 || !strings.Contains(out, tt.wantOut) || !strings.Contains(stderr, tt.wantStderr) {
				t.Errorf("toolhost call %s %s: exit %d\nstdout %s\nstderr %s\nwant stdout with %q, stderr with %q", tt.tool, tt.args, code, out, stderr, tt.wantOut, tt.wantStderr)
			}
		})
	}
	t.Run("the filesystem server's own refusal is a tool error", func(t *testing.T) {
		t.Parallel()
		_, stderr, code := p.run("call", "fs_read_text_file", `{"path":"/etc/hostname"}`)
		if code != 1 || !strings.Contains(stderr, "denied") {
			t.Errorf("exit %d, stderr %s; want exit 1 with the server's access-denied message", code, stderr)
		}
	})
}
