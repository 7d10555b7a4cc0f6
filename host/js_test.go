package host

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/plugins/js/jstooltest"
	"github.com/toolhost/toolhost/runtime"
)

const openCodeTool = `import { tool } from "@opencode-ai/plugin"

export default tool({
  description: "Add two numbers",
  args: { a: tool.schema.number(), b: tool.schema.number().default(1) },
  async execute(args) {
    return String(args.a + args.b)
  },
})
`

func TestJSToolsLoadFromOpenCodeAndToolhostFolders(t *testing.T) {
	t.Parallel()
	project, env := newProject(t)
	cache := testCache(t)
	jstooltest.SeedEngine(t, cache)
	jstooltest.LinkZod(t, project)
	for _, p := range []string{".opencode/tool/add.ts", ".toolhost/tool/plus.ts"} {
		os.MkdirAll(filepath.Join(project, filepath.Dir(p)), 0o755)
		if err := os.WriteFile(filepath.Join(project, p), []byte(openCodeTool), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name, config string
		want         map[string]bool
	}{
		{"both folders by default", `{}`, map[string]bool{"add": true, "plus": true}},
		{"compat opencode false skips OpenCode's", `{"compat": {"opencode": false}}`, map[string]bool{"add": false, "plus": true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			os.WriteFile(filepath.Join(project, "toolhost.json"), []byte(tt.config), 0o644)
			ctx := context.Background()
			h, err := New(ctx, Options{Directory: project, Env: env, DataDir: t.TempDir(), CacheDir: cache})
			if err != nil {
				t.Fatal(err)
			}
			defer h.Close(ctx)
			if len(h.LoadErrors) > 0 {
				t.Fatalf("load errors: %v", h.LoadErrors)
			}
			for id, want := range tt.want {
				src, ok := h.Registry.Source(id)
				if ok != want || ok && src != runtime.SourceJS {
					t.Fatalf("%s: source %q, present %v, want present %v", id, src, ok, want)
				}
			}
			res, err := h.Call(ctx, runtime.Call{Tool: "plus", Args: json.RawMessage(`{"a": 41}`)})
			if err != nil || strings.TrimSpace(res.Output) != "42" {
				t.Fatalf("plus = %q, %v", res.Output, err)
			}
		})
	}
}

func TestAJSToolDroppedIntoARunningHostComesAndGoes(t *testing.T) {
	t.Parallel()
	project, env := newProject(t)
	cache := testCache(t)
	jstooltest.SeedEngine(t, cache)
	jstooltest.LinkZod(t, project)
	ctx := context.Background()
	h, err := New(ctx, Options{Directory: project, Env: env, DataDir: t.TempDir(), CacheDir: cache, Watch: true})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(ctx)
	file := filepath.Join(project, ".opencode", "tool", "late.ts")
	os.MkdirAll(filepath.Dir(file), 0o755)
	if err := os.WriteFile(file, []byte(openCodeTool), 0o644); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the dropped file's tool is listed", func() bool { _, ok := h.Registry.Source("late"); return ok })
	os.Remove(file)
	waitFor(t, "the removed file's tool is gone", func() bool { _, ok := h.Registry.Source("late"); return !ok })
}

// waitFor polls cond until it holds; the generous limit only tells "late"
// from "never".
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within 60s: %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestWithoutTheEngineOnlyJSToolsFailToLoad(t *testing.T) {
	project, env := newProject(t)
	t.Setenv("PATH", t.TempDir()) // no npm, and no engine in the cache
	os.MkdirAll(filepath.Join(project, ".opencode", "tool"), 0o755)
	os.WriteFile(filepath.Join(project, ".opencode", "tool", "add.ts"), []byte(openCodeTool), 0o644)
	ctx := context.Background()
	h, err := New(ctx, Options{Directory: project, Env: env, DataDir: t.TempDir(), CacheDir: testCache(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(ctx)
	if len(h.LoadErrors) != 1 || h.LoadErrors[0].Source != runtime.SourceJS || !strings.Contains(h.LoadErrors[0].Reason, "npm") {
		t.Fatalf("load errors = %+v, want one naming npm", h.LoadErrors)
	}
	if !h.Registry.Has("read") {
		t.Fatal("the built-ins did not load")
	}
}
