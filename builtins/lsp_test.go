package builtins

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/config"
	"github.com/toolhost/toolhost/runtime/permission"
)

// goplsVersion is installed for the test when gopls is not on PATH. It is
// pinned because gopls@latest may need a newer Go than the one running the
// tests.
const goplsVersion = "v0.23.0"

var (
	goplsOnce sync.Once
	goplsPath string
	goplsErr  error
)

// gopls finds gopls on PATH, or installs it from the module proxy into a
// directory under the system temp dir that later runs reuse. Without it the
// test is skipped locally and fails in CI (CI=true).
func gopls(t *testing.T) string {
	t.Helper()
	goplsOnce.Do(func() {
		if p, err := exec.LookPath("gopls"); err == nil {
			goplsPath = p
			return
		}
		bin := filepath.Join(os.TempDir(), "toolhost-test-gopls-"+goplsVersion)
		goplsPath = filepath.Join(bin, "gopls")
		if _, err := os.Stat(goplsPath); err == nil {
			return
		}
		cmd := exec.Command("go", "install", "golang.org/x/tools/gopls@"+goplsVersion)
		cmd.Dir = os.TempDir() // outside any module
		cmd.Env = append(os.Environ(), "GOBIN="+bin)
		if out, err := cmd.CombinedOutput(); err != nil {
			goplsErr = fmt.Errorf("go install gopls@%s: %v\n%s", goplsVersion, err, out)
		}
	})
	if goplsErr != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(goplsErr)
		}
		t.Skipf("gopls unavailable, skipping: %v", goplsErr)
	}
	return goplsPath
}

func TestLSPReportsGoplsErrors(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts gopls")
	}
	server := gopls(t)
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":   "module example.com/m\n\ngo 1.22\n",
		"a.go":     "package m\n\nvar X int = \"not a number\"\n\nfunc F() { undefinedThing() }\n",
		"b.go":     "package m\n\nvar Y = X + missing\n",
		"ok/ok.go": "package ok\n\nfunc Fine() int { return 1 }\n",
	}
	for name, content := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg := &config.Config{LSP: map[string]config.LSPServer{"go": {Command: []string{server}, Extensions: []string{".go"}}}}
	var asked []permission.Request
	tc := runtime.NewContext(runtime.Context{SessionID: "s", Directory: dir, Worktree: dir, Config: cfg}, nil, func(_ context.Context, r permission.Request) error {
		asked = append(asked, r)
		return nil
	})

	res, err := invokeTool(t, LSP(), tc, lspParams{FilePath: "a.go"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"This file has errors", "ERROR [3:", "ERROR [5:", "undefinedThing", `<diagnostics file="b.go">`, "missing"} {
		if !strings.Contains(res.Output, want) {
			t.Errorf("output lacks %q:\n%s", want, res.Output)
		}
	}
	if res.Metadata["errors"] != 2 || res.Metadata["server"] != "go" {
		t.Errorf("metadata %v", res.Metadata)
	}
	if len(asked) != 1 || asked[0].Permission != "lsp" || asked[0].Patterns[0] != "a.go" {
		t.Errorf("asked %+v", asked)
	}

	res, err = invokeTool(t, LSP(), tc, lspParams{FilePath: "ok/ok.go"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.Output, "No errors reported in ") {
		t.Errorf("clean file output:\n%s", res.Output)
	}
}

func TestLSPWithoutAServerSaysHowToConfigureOne(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "x.zig"), []byte("const x = 1;"), 0o644)
	tc := runtime.NewContext(runtime.Context{Directory: dir, Worktree: dir, Config: &config.Config{}}, nil, allowAll)
	_, err := invokeTool(t, LSP(), tc, lspParams{FilePath: "x.zig"})
	if err == nil || !strings.Contains(err.Error(), `no language server is configured for .zig files`) {
		t.Errorf("error %v", err)
	}
}

func TestFormatDiagnosticsKeepsOpenCodesLimits(t *testing.T) {
	t.Parallel()
	many := func(n int) []diagnostic {
		var ds []diagnostic
		for i := range n {
			ds = append(ds, diagnostic{Line: i + 1, Column: 2, Message: fmt.Sprintf("e%d", i)})
		}
		return ds
	}
	diags := map[string][]diagnostic{"/p/main.go": many(25)}
	for i := range 7 {
		diags[fmt.Sprintf("/p/o%d.go", i)] = many(1)
	}
	out, n := formatDiagnostics("/p/main.go", "/p", diags)
	if n != 25 {
		t.Errorf("count %d", n)
	}
	for _, want := range []string{"ERROR [20:2] e19\n... and 5 more\n</file_diagnostics>", `<diagnostics file="o4.go">`, "... and 2 more files with errors"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "e20") || strings.Contains(out, "o5.go") {
		t.Errorf("output exceeds the limits:\n%s", out)
	}
}

func FuzzReadLSPMessage(f *testing.F) {
	f.Add([]byte("Content-Length: 17\r\n\r\n{\"jsonrpc\":\"2.0\"}"))
	f.Add([]byte("Content-Type: x\r\ncontent-length: 2\r\n\r\n{}"))
	f.Add([]byte("Content-Length: -1\r\n\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := readLSPMessage(bufio.NewReader(bytes.NewReader(data)))
		if err == nil && m.JSONRPC == "" && m.Method == "" && m.ID == nil && m.Result == nil && m.Error == nil && m.Params == nil {
			return // an empty object is a valid message
		}
	})
}
