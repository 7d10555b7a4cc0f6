package host

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/engines/lsp/lsptest"
	"github.com/toolhost/toolhost/runtime"
)

func TestEditsReportTheLanguageServersErrorsAndCloseStopsTheServers(t *testing.T) {
	t.Parallel()
	project, env := newProject(t)
	server, log := lsptest.Server(t, ".fk")
	cfg, _ := json.Marshal(map[string]any{"lsp": map[string]any{"fake": server}})
	if err := os.WriteFile(filepath.Join(project, "toolhost.json"), cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	h, err := New(ctx, Options{Directory: project, Env: env, NoWasm: true, DataDir: t.TempDir(), CacheDir: testCache(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(ctx)
	wants := []string{"ERROR [1:3] first", "ERROR [1:1] second"}
	for i, content := range []string{"x ERROR: first\n", "ERROR: second\n"} {
		args, _ := json.Marshal(map[string]any{"filePath": "a.fk", "content": content})
		res, err := h.Call(ctx, runtime.Call{Tool: "write", SessionID: "s", Args: args})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(res.Output, "LSP errors detected in this file, please fix:") || !strings.Contains(res.Output, wants[i]) {
			t.Errorf("write %d output:\n%s", i+1, res.Output)
		}
	}
	if n := lsptest.Count(t, log, "initialize"); n != 1 {
		t.Errorf("%d servers started for two edits, want 1", n)
	}
	if err := h.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if lsptest.Count(t, log, "shutdown") != 1 || lsptest.Count(t, log, "exit") != 1 {
		t.Errorf("Close did not shut the server down: %q", lsptest.Log(t, log))
	}
}
