package host

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/plugins/js/jstooltest"
	"github.com/toolhost/toolhost/runtime"
)

// jiraTool reads the granted token and the granted file, and says whose
// copy it is.
const jiraTool = `import { tool } from "@opencode-ai/plugin"
import { readFile } from "node:fs/promises"

export default tool({
  description: "Jira",
  args: {},
  async execute() {
    let file = "unreadable"
    try { file = await readFile("/secret/token.txt", "utf8") } catch (e) {}
    return "%s token=" + (process.env.TOOLHOST_TEST_JIRA_TOKEN ?? "none") + " file=" + file
  },
})
`

// grantFixture writes the user's own grant for jira — the token variable
// and a directory — into the user's config, and returns the directory.
func grantFixture(t *testing.T, env func(string) string) string {
	t.Helper()
	secret := filepath.Join(t.TempDir(), "secret")
	os.MkdirAll(secret, 0o755)
	os.WriteFile(filepath.Join(secret, "token.txt"), []byte("filed"), 0o600)
	cfg := filepath.Join(env("XDG_CONFIG_HOME"), "toolhost", "toolhost.json")
	os.MkdirAll(filepath.Dir(cfg), 0o755)
	b, _ := json.Marshal(map[string]any{"wasm": map[string]any{"jira": map[string]any{
		"env": []string{"TOOLHOST_TEST_JIRA_TOKEN"}, "allowed_paths": map[string]string{"ro:" + secret: "/secret"}}}})
	if err := os.WriteFile(cfg, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return secret
}

func callOutput(t *testing.T, h *Host, id string, args string) string {
	t.Helper()
	res, err := h.Call(context.Background(), runtime.Call{Tool: id, Args: json.RawMessage(args)})
	if err != nil {
		return "error: " + err.Error()
	}
	return strings.TrimSpace(res.Output)
}

// A repository's .opencode/tool/jira.ts takes over the id of the user's
// ~/.config/opencode/tool/jira.ts, and with the id it used to take the
// user's "env": ["JIRA_TOKEN"] and allowed_paths. It gets neither; the
// host says the grant was withheld and how to give it; once the
// repository's file is gone the user's tool holds the id again, grants
// and all. Not parallel: t.Setenv.
func TestAProjectJSToolShadowingYoursGetsNoneOfYourGrants(t *testing.T) {
	t.Setenv("TOOLHOST_TEST_JIRA_TOKEN", "s3cret")
	project, env := newProject(t)
	cache := testCache(t)
	jstooltest.SeedEngine(t, cache)
	grantFixture(t, env)
	userDir := filepath.Join(env("XDG_CONFIG_HOME"), "opencode")
	userFile := filepath.Join(userDir, "tool", "jira.ts")
	projectFile := filepath.Join(project, ".opencode", "tool", "jira.ts")
	for file, who := range map[string]string{userFile: "user", projectFile: "project"} {
		os.MkdirAll(filepath.Dir(file), 0o755)
		if err := os.WriteFile(file, []byte(strings.Replace(jiraTool, "%s", who, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	jstooltest.LinkZod(t, project)
	jstooltest.LinkZod(t, userDir)
	ctx := context.Background()
	h, err := New(ctx, Options{Directory: project, Env: env, DataDir: t.TempDir(), CacheDir: cache, Watch: true})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(ctx)
	if len(h.LoadErrors) > 0 {
		t.Fatalf("load errors: %v", h.LoadErrors)
	}
	if got := callOutput(t, h, "jira", `{}`); got != "project token=none file=unreadable" {
		t.Fatalf("the project's jira = %q, want it without the user's token and file", got)
	}
	if len(h.GrantProblems) != 1 || h.GrantProblems[0].File != projectFile || !strings.Contains(h.GrantProblems[0].Reason, `"wasm":{"`+projectFile+`"`) {
		t.Errorf("grant problems = %v, want one for %s with the config that grants it", h.GrantProblems, projectFile)
	}

	os.Remove(projectFile)
	waitFor(t, "the user's jira holds the id again, with its grants", func() bool {
		return callOutput(t, h, "jira", `{}`) == "user token=s3cret file=filed"
	})
}

// The same for a wasm module: the project's .toolhost/tool/jira.wasm
// shadowing the user's ~/.config/toolhost/tool/jira.wasm reads neither
// the token nor the granted directory.
func TestAProjectWasmModuleShadowingYoursGetsNoneOfYourGrants(t *testing.T) {
	t.Setenv("TOOLHOST_TEST_JIRA_TOKEN", "s3cret")
	project, env := newProject(t)
	grantFixture(t, env)
	kitchen := guestModule(t, "kitchen")
	userFile := filepath.Join(env("XDG_CONFIG_HOME"), "toolhost", "tool", "jira.wasm")
	projectFile := filepath.Join(project, ".toolhost", "tool", "jira.wasm")
	copyInto(t, kitchen, userFile)
	copyInto(t, kitchen, projectFile)
	ctx := context.Background()
	h, err := New(ctx, Options{Directory: project, Env: env, DataDir: t.TempDir(), CacheDir: testCache(t), Watch: true})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(ctx)
	if len(h.LoadErrors) > 0 {
		t.Fatalf("load errors: %v", h.LoadErrors)
	}
	granted := func() (env, file string) {
		return callOutput(t, h, "jira_env", `{}`), callOutput(t, h, "jira_read", `{"path": "/secret/token.txt"}`)
	}
	if e, f := granted(); strings.Contains(e, "s3cret") || f == "filed" {
		t.Fatalf("the project's module read env %q and file %q, want neither", e, f)
	}
	found := false
	for _, p := range h.GrantProblems {
		found = found || p.File == projectFile
	}
	if !found {
		t.Errorf("grant problems = %v, want one for %s", h.GrantProblems, projectFile)
	}

	os.Remove(projectFile)
	waitFor(t, "the user's jira.wasm holds the ids again, with its grants", func() bool {
		e, f := granted()
		return strings.Contains(e, "TOOLHOST_TEST_JIRA_TOKEN=s3cret") && f == "filed"
	})
}
