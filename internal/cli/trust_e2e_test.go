package cli_test

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/toolhost/toolhost/internal/testkit/e2e"
)

// kitchenWasm builds plugins/wasm/testdata/guests/kitchen (its env tool lists
// the environment the guest was granted), as echoWasm builds echo.
func kitchenWasm(t *testing.T) []byte {
	t.Helper()
	out, err := e2e.GoBuild(filepath.Join("..", "..", "plugins", "wasm", "testdata", "guests"), wasip1, "-buildmode=c-shared", "./kitchen")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("build the kitchen guest: %v", err)
		}
		t.Skipf("skipped: build the kitchen guest: %v", err)
	}
	wasm, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return wasm
}

// TestACloneRunsNothingOfItsOwnUntilTrusted is the case through the
// binary: a cloned project names a language server and an MCP server (both
// scripts that leave a marker when started), grants its wasm tool an
// environment variable and widens the bash rule. Until `toolhost trust`,
// nothing starts, the tool is listed but answers with the command, the
// grant and the rule do not apply, and every command says so once. After
// trust all of it does; a bash call that edits toolhost.json makes the
// project untrusted again for the next command.
func TestACloneRunsNothingOfItsOwnUntilTrusted(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary and a wasm guest")
	}
	wasm := kitchenWasm(t)
	p := e2e.NewProject(t)
	p.ShareCompiled()
	// This test is about trust: the project is not trusted by the
	// environment, as every other e2e project is.
	p.Env = append(p.Env, "TOOLHOST_TRUSTED_PROJECTS=", "PROBE_SECRET=s3cret-value")
	markers := filepath.Join(filepath.Dir(p.Dir), "markers")
	if err := os.MkdirAll(markers, 0o755); err != nil {
		t.Fatal(err)
	}
	mcpMarker, lspMarker := filepath.Join(markers, "mcp-started"), filepath.Join(markers, "lsp-started")
	global := filepath.Join(p.Home, ".config", "toolhost", "toolhost.json")
	if err := os.MkdirAll(filepath.Dir(global), 0o755); err != nil {
		t.Fatal(err)
	}
	// The user's own config: edits allowed, bash asked (and, with no one
	// to ask, refused).
	if err := os.WriteFile(global, []byte(`{"permission": {"edit": "allow", "bash": "ask"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	p.Write(".toolhost/tool/kitchen.wasm", string(wasm))
	p.Write("toolhost.json", fmt.Sprintf(`{
		"mcp": {"probe": {"type": "local", "command": ["sh", "-c", "touch %s"], "timeout": 2000}},
		"lsp": {"probe": {"command": ["sh", "-c", "touch %s"], "extensions": [".probe"]}},
		"wasm": {"kitchen": {"env": ["PROBE_SECRET"]}},
		"permission": {"bash": "allow"}
	}`, mcpMarker, lspMarker))
	exists := func(path string) bool { _, err := os.Stat(path); return err == nil }
	bash := func(command string) (string, string, int) {
		return p.Run("", "call", "bash", fmt.Sprintf(`{"command": %q, "description": "probe"}`, command))
	}
	writeProbe := func() (string, string, int) {
		return p.Run("", "call", "write", fmt.Sprintf(`{"filePath": %q, "content": "x\n"}`, filepath.Join(p.Dir, "a.probe")))
	}
	untrusted := func(t *testing.T, when string) {
		t.Helper()
		out, stderr, code := p.Run("", "tools")
		if code != 0 {
			t.Fatalf("%s: tools: exit %d\n%s%s", when, code, out, stderr)
		}
		if n := strings.Count(stderr, "toolhost trust"); n != 1 || !strings.Contains(stderr, "not trusted") {
			t.Errorf("%s: tools' stderr names the trust command %d times, want once with \"not trusted\":\n%s", when, n, stderr)
		}
		if !strings.Contains(out, "kitchen") {
			t.Errorf("%s: the project's tool is not listed:\n%s", when, out)
		}
		if out, stderr, code := p.Run("", "call", "kitchen", `{}`); code == 0 || !strings.Contains(out+stderr, "not trusted") || !strings.Contains(out+stderr, "toolhost trust") {
			t.Errorf("%s: call kitchen: exit %d, want a refusal naming the trust command:\n%s%s", when, code, out, stderr)
		}
		if out, stderr, code := bash("echo widened"); code == 0 || strings.Contains(out, "widened") {
			t.Errorf("%s: the project's \"bash\": \"allow\" took effect: exit %d\n%s%s", when, code, out, stderr)
		}
		if out, stderr, code := writeProbe(); code != 0 {
			t.Errorf("%s: write a.probe: exit %d\n%s%s", when, code, out, stderr)
		}
		if exists(mcpMarker) || exists(lspMarker) {
			t.Errorf("%s: a server the project names started (mcp %v, lsp %v)", when, exists(mcpMarker), exists(lspMarker))
		}
		if _, _, code := p.Run("", "trust", "--status"); code != 1 {
			t.Errorf("%s: trust --status: exit %d, want 1 (not trusted)", when, code)
		}
		// toolhost mcp tells the client in its instructions.
		if out, stderr := mcpInitialize(t, p); !strings.Contains(out, "not trusted") || !strings.Contains(out, "toolhost trust") || strings.Count(stderr, "toolhost trust") != 1 {
			t.Errorf("%s: mcp's initialize answer lacks the notice, or stderr does not carry it once:\n%s\n%s", when, out, stderr)
		}
		if exists(mcpMarker) {
			t.Errorf("%s: toolhost mcp started the project's MCP server", when)
		}
	}

	untrusted(t, "cloned")

	// Without a terminal and without --yes, trust refuses.
	cmd := p.Command("trust")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // no controlling terminal
	var sout, serr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &sout, &serr
	var ee *exec.ExitError
	if err := cmd.Run(); !errors.As(err, &ee) || !strings.Contains(serr.String(), "--yes") {
		t.Fatalf("trust without a terminal: %v, want a refusal naming --yes:\n%s%s", err, sout.String(), serr.String())
	}
	// The summary says what trusting would let the project do.
	for _, want := range []string{"MCP server probe: sh -c 'touch " + mcpMarker + "'", "language server probe: sh -c", "tool kitchen: environment variables PROBE_SECRET", `bash "*": allow`, ".toolhost/tool/kitchen.wasm", "Digest: sha256:"} {
		if !strings.Contains(sout.String(), want) {
			t.Errorf("trust's summary lacks %q:\n%s", want, sout.String())
		}
	}
	if exists(mcpMarker) {
		t.Fatal("showing the summary started the MCP server")
	}
	if out, stderr, code := p.Run("", "trust", "--yes"); code != 0 || !strings.Contains(out, "trusted") {
		t.Fatalf("trust --yes: exit %d\n%s%s", code, out, stderr)
	}

	// Trusted: the servers start, the grant and the rule apply.
	if out, stderr, code := p.Run("", "tools"); code != 0 || strings.Contains(stderr, "not trusted") {
		t.Fatalf("trusted tools: exit %d\n%s%s", code, out, stderr)
	}
	if !exists(mcpMarker) {
		t.Error("trusted: the project's MCP server did not start")
	}
	if out, stderr, code := p.Run("", "call", "kitchen_env", `{}`); code != 0 || !strings.Contains(out, "PROBE_SECRET=s3cret-value") {
		t.Errorf("trusted: kitchen_env: exit %d, want the granted variable:\n%s%s", code, out, stderr)
	}
	if out, stderr, code := writeProbe(); code != 0 || !exists(lspMarker) {
		t.Errorf("trusted: write a.probe: exit %d, language server started %v\n%s%s", code, exists(lspMarker), out, stderr)
	}
	if out, stderr, code := bash("echo widened"); code != 0 || !strings.Contains(out, "widened") {
		t.Errorf("trusted: bash under the project's allow: exit %d\n%s%s", code, out, stderr)
	}

	// A bash call rewrites the config: the next command runs untrusted.
	if out, stderr, code := bash("printf ' ' >> toolhost.json"); code != 0 {
		t.Fatalf("bash editing toolhost.json: exit %d\n%s%s", code, out, stderr)
	}
	os.Remove(mcpMarker)
	os.Remove(lspMarker)
	untrusted(t, "after bash edited toolhost.json")
}

// mcpInitialize starts `toolhost mcp`, sends initialize, and returns the
// answer's line and stderr once the server has stopped.
func mcpInitialize(t *testing.T, p *e2e.Project) (string, string) {
	t.Helper()
	cmd := p.Command("mcp")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var serr bytes.Buffer
	cmd.Stderr = &serr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`+"\n")
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	stdin.Close()
	cmd.Wait()
	return line, serr.String()
}
