package main_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/engines/lsp/lsptest"
	"github.com/toolhost/toolhost/internal/testkit/e2e"
)

func TestCallWriteEndsWithTheLanguageServersErrors(t *testing.T) {
	t.Parallel()
	e := e2e.NewProject(t)
	server, log := lsptest.Server(t, ".fk")
	cfg, _ := json.Marshal(map[string]any{"lsp": map[string]any{"fake": server}})
	e.Write("toolhost.json", string(cfg))

	res, stderr, code := callJSON(t, e, "write", `{"filePath":"a.fk","content":"x ERROR: undefined: y\n"}`)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	path := filepath.Join(e.Dir, "a.fk")
	want := "Wrote file successfully.\n\nLSP errors detected in this file, please fix:\n<diagnostics file=\"" + path + "\">\nERROR [1:3] undefined: y\n</diagnostics>"
	if res.Output != want {
		t.Errorf("output:\n%s\nwant:\n%s", res.Output, want)
	}
	diags, _ := res.Metadata["diagnostics"].(map[string]any)
	ds, _ := diags[path].([]any)
	if len(ds) != 1 || !strings.Contains(mustJSON(t, ds[0]), `"message":"undefined: y"`) || !strings.Contains(mustJSON(t, ds[0]), `"start":{"character":2,"line":0}`) {
		t.Errorf("metadata diagnostics: %v", res.Metadata["diagnostics"])
	}
	// The one-shot command shut its server down on the way out.
	if lsptest.Count(t, log, "shutdown") != 1 || lsptest.Count(t, log, "exit") != 1 {
		t.Errorf("server log: %q", lsptest.Log(t, log))
	}

	// "lsp": false: no server, the tool's own output.
	e.Write("toolhost.json", `{"lsp": false}`)
	res, stderr, code = callJSON(t, e, "write", `{"filePath":"b.fk","content":"ERROR: z\n"}`)
	if code != 0 || res.Output != "Wrote file successfully." {
		t.Errorf("with lsp false: exit %d, output %q, stderr %s", code, res.Output, stderr)
	}
	if n := lsptest.Count(t, log, "initialize"); n != 1 {
		t.Errorf("%d servers started, want the first call's alone", n)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
