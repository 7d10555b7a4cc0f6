package runtime

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/toolhost/toolhost/runtime/config"
	"github.com/toolhost/toolhost/runtime/permission"
)

// An untrusted project keeps only its deny rules, per agent too. A deny
// rule for an agent the user never defined must not bring that agent
// into being: a new agent has mode "all", the defaults' rules and the
// user's, so a plan session could start it as a subagent that edits.
func TestAnUntrustedProjectDefinesNoAgent(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	proj := filepath.Join(dir, "proj")
	for _, d := range []string{home, filepath.Join(proj, ".git")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(path, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(home, ".config", "toolhost", "toolhost.json"), `{"agent": {"mine": {"description": "the user's"}}}`)
	write(filepath.Join(proj, "toolhost.json"), `{"agent": {
		"helper": {"mode": "subagent", "permission": {"nothing": "deny"}},
		"mine": {"permission": {"webfetch": "deny"}},
		"plan": {"permission": {"websearch": "deny"}}}}`)
	env := func(string) string { return "" }
	loaded, err := config.Load(config.LoadOptions{Directory: proj, Worktree: proj, Home: home, Env: env, UntrustedProject: true})
	if err != nil {
		t.Fatal(err)
	}
	agents, err := ResolveAgents(loaded.Config)
	if err != nil {
		t.Fatal(err)
	}
	if a, ok := agents["helper"]; ok {
		t.Errorf("the untrusted project's deny rule created agent helper (mode %s), a subagent with the default rules", a.Mode)
	}
	for _, c := range []struct{ agent, perm string }{{"mine", "webfetch"}, {"plan", "websearch"}} {
		a := agents[c.agent]
		if a == nil {
			t.Fatalf("agent %s is missing", c.agent)
		}
		if r, _ := permission.Evaluate(c.perm, "x", a.Rules); r.Action != permission.Deny {
			t.Errorf("agent %s: %s = %s, want the untrusted project's deny kept for an agent that exists", c.agent, c.perm, r.Action)
		}
	}

	trusted, err := config.Load(config.LoadOptions{Directory: proj, Worktree: proj, Home: home, Env: env})
	if err != nil {
		t.Fatal(err)
	}
	if agents, err := ResolveAgents(trusted.Config); err != nil || agents["helper"] == nil {
		t.Errorf("trusted, the project's agent helper = %v (%v), want it defined", agents["helper"], err)
	}
}
