package runtime

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/runtime/config"
	"github.com/toolhost/toolhost/runtime/permission"
)

func decodeConfig(t *testing.T, js string) *config.Config {
	t.Helper()
	var c config.Config
	if err := json.Unmarshal([]byte(js), &c); err != nil {
		t.Fatalf("decode %s: %v", js, err)
	}
	return &c
}

func TestAgentRules(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		config     string
		agent      string
		permission string
		pattern    string
		want       permission.Action
	}{
		{"build allows bash by default", `{}`, "build", "bash", "rm -rf build", permission.Allow},
		{"build asks before reading an env file", `{}`, "build", "read", "app/.env", permission.Ask},
		{"build asks before reading an env.local file", `{}`, "build", "read", ".env.local", permission.Ask},
		{"build reads an env example freely", `{}`, "build", "read", ".env.example", permission.Allow},
		{"build asks before leaving the project", `{}`, "build", "external_directory", "/etc/*", permission.Ask},
		{"build asks on a doom loop", `{}`, "build", "doom_loop", "read", permission.Ask},
		{"build may ask the user questions", `{}`, "build", "question", "*", permission.Allow},
		{"plan may not edit source files", `{}`, "plan", "edit", "main.go", permission.Deny},
		{"plan may write its plans", `{}`, "plan", "edit", ".toolhost/plans/refactor.md", permission.Allow},
		{"plan may run bash", `{}`, "plan", "bash", "go test ./...", permission.Allow},
		{"explore may not edit", `{}`, "explore", "edit", "main.go", permission.Deny},
		{"explore may grep", `{}`, "explore", "grep", "*", permission.Allow},
		{"explore may not start tasks", `{}`, "explore", "task", "general", permission.Deny},
		{"explore may not leave the project", `{}`, "explore", "external_directory", "/etc/*", permission.Deny},
		{"explore still asks before reading secrets", `{}`, "explore", "read", "app/.env", permission.Ask},
		{"the user's rules come after the agent's", `{"permission": {"edit": "allow"}}`, "plan", "edit", "main.go", permission.Allow},
		{"the user's deny reaches every agent", `{"permission": {"bash": {"rm *": "deny"}}}`, "explore", "bash", "rm x", permission.Deny},
		{"a config agent's rules override the built-in agent's",
			`{"agent": {"explore": {"permission": {"edit": {"docs/*": "allow"}}}}}`, "explore", "edit", "docs/a.md", permission.Allow},
		{"the user's top-level rules override a config agent's rules",
			`{"permission": {"bash": {"git *": "allow"}}, "agent": {"plan": {"permission": {"bash": "deny"}}}}`, "plan", "bash", "git status", permission.Allow},
		{"a config agent's deny holds where the user says nothing",
			`{"permission": {"bash": {"git *": "allow"}}, "agent": {"plan": {"permission": {"bash": "deny"}}}}`, "plan", "bash", "rm x", permission.Deny},
		{"a new agent starts from the defaults", `{"agent": {"review": {}}}`, "review", "read", "x/.env", permission.Ask},
		{"a new agent's own rules apply", `{"agent": {"review": {"permission": {"edit": "deny"}}}}`, "review", "edit", "a.go", permission.Deny},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			agents, err := ResolveAgents(decodeConfig(t, tt.config))
			if err != nil {
				t.Fatal(err)
			}
			a, ok := agents[tt.agent]
			if !ok {
				t.Fatalf("no agent %q", tt.agent)
			}
			if got, _ := permission.Evaluate(tt.permission, tt.pattern, a.Rules); got.Action != tt.want {
				t.Errorf("%s: %s %q decided %v, want %s\n%s", tt.agent, tt.permission, tt.pattern, got, tt.want,
					permission.Explain(tt.permission, tt.pattern, a.Rules).Format())
			}
		})
	}
}

func TestAgentDisabledTools(t *testing.T) {
	t.Parallel()
	tools := []string{"bash", "edit", "write", "apply_patch", "read", "grep", "task", "todowrite"}
	agents, err := ResolveAgents(&config.Config{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		agent string
		want  []string
	}{
		{"build", nil},
		{"plan", nil}, // edit is denied except for plans, so it stays offered
		{"explore", []string{"apply_patch", "edit", "task", "todowrite", "write"}},
	}
	for _, tt := range tests {
		t.Run(tt.agent+" hides exactly the tools denied outright", func(t *testing.T) {
			t.Parallel()
			got := slices.Sorted(maps.Keys(permission.Disabled(tools, agents[tt.agent].Rules)))
			if !slices.Equal(got, tt.want) {
				t.Errorf("disabled %v, want %v", got, tt.want)
			}
		})
	}
}

func TestResolveAgents(t *testing.T) {
	t.Parallel()
	t.Run("built-in agents have their modes and are marked built in", func(t *testing.T) {
		t.Parallel()
		agents, err := ResolveAgents(nil)
		if err != nil {
			t.Fatal(err)
		}
		for name, mode := range map[string]string{"build": ModePrimary, "plan": ModePrimary, "explore": ModeSubagent} {
			if a := agents[name]; a == nil || a.Mode != mode || !a.BuiltIn || a.Name != name {
				t.Errorf("agent %s = %+v, want mode %s, built in", name, a, mode)
			}
		}
	})
	t.Run("a config agent defaults to mode all and overrides only what it sets", func(t *testing.T) {
		t.Parallel()
		agents, err := ResolveAgents(decodeConfig(t, `{"agent": {
			"review": {"description": "Reviews diffs", "model": "gpt-4.1", "tools": {"bash": false}, "max_steps": 5},
			"plan": {"mode": "all", "prompt": "Plan carefully."}}}`))
		if err != nil {
			t.Fatal(err)
		}
		r := agents["review"]
		if r.Mode != ModeAll || r.BuiltIn || r.Description != "Reviews diffs" || r.Model != "gpt-4.1" || r.MaxSteps != 5 || r.Tools["bash"] {
			t.Errorf("review = %+v", r)
		}
		if v, ok := r.Tools["bash"]; !ok || v {
			t.Errorf("review tools = %v, want bash: false", r.Tools)
		}
		p := agents["plan"]
		if p.Mode != ModeAll || p.Prompt != "Plan carefully." || !p.BuiltIn || !strings.Contains(p.Description, "Plan mode") {
			t.Errorf("plan = %+v", p)
		}
	})
	t.Run("a disabled agent is removed", func(t *testing.T) {
		t.Parallel()
		agents, err := ResolveAgents(decodeConfig(t, `{"agent": {"explore": {"disable": true}}}`))
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := agents["explore"]; ok {
			t.Error("explore is still there")
		}
	})
	t.Run("rule sources say where each rule came from", func(t *testing.T) {
		t.Parallel()
		cfg := decodeConfig(t, `{"permission": {"bash": "ask"}, "agent": {"plan": {"permission": {"webfetch": "deny"}}}}`)
		cfg.Permission.Rules[0].Source = "/p/toolhost.json:1"
		agents, err := ResolveAgents(cfg)
		if err != nil {
			t.Fatal(err)
		}
		rules := agents["plan"].Rules
		for _, c := range []struct{ perm, pattern, source string }{
			{"doom_loop", "x", "default"},
			{"edit", "main.go", "agent plan"},
			{"webfetch", "https://x", ""}, // config rules keep what the loader gave them
			{"bash", "ls", "/p/toolhost.json:1"},
		} {
			if got, _ := permission.Evaluate(c.perm, c.pattern, rules); got.Source != c.source {
				t.Errorf("%s %q decided by %v, want source %q", c.perm, c.pattern, got, c.source)
			}
		}
	})
	t.Run("each call returns fresh agents", func(t *testing.T) {
		t.Parallel()
		a := BuiltinAgents()
		a["build"].Rules[0].Action = permission.Deny
		a["build"].Mode = ModeSubagent
		b := BuiltinAgents()
		if b["build"].Rules[0].Action != permission.Allow || b["build"].Mode != ModePrimary {
			t.Error("changing one result changed the next")
		}
	})
	errTests := []struct {
		name, config, want string
	}{
		{"an unknown mode is refused", `{"agent": {"review": {"mode": "boss"}}}`, `mode "boss" is not primary, subagent or all`},
		{"an unknown default agent is refused", `{"default_agent": "nobody"}`, `default_agent "nobody": no such agent`},
		{"a disabled default agent is refused", `{"default_agent": "plan", "agent": {"plan": {"disable": true}}}`, `default_agent "plan": no such agent`},
		{"a subagent cannot be the default agent", `{"default_agent": "explore"}`, `it is a subagent`},
	}
	for _, tt := range errTests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := ResolveAgents(decodeConfig(t, tt.config))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ResolveAgents = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func TestDefaultRulesGuardTheRepositoryAndToolhostsOwnConfig(t *testing.T) {
	t.Parallel()
	userAllows, err := ResolveAgents(&config.Config{Permission: permission.Config{Rules: permission.Ruleset{
		{Permission: "edit", Pattern: ".git/*", Action: permission.Allow, Source: "user"},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	defaults := BuiltinAgents()
	tests := []struct {
		name    string
		agents  map[string]*Agent
		agent   string
		pattern string
		want    permission.Action
	}{
		{"a hook under .git asks", defaults, "build", ".git/hooks/pre-commit", permission.Ask},
		{"a nested repository's config asks", defaults, "build", "vendor/x/.git/config", permission.Ask},
		{"an absolute path under .git asks", defaults, "build", "/outside/repo/.git/config", permission.Ask},
		{"toolhost.json in the project asks", defaults, "build", "toolhost.json", permission.Ask},
		{"a module dropped into .toolhost/tool asks", defaults, "build", ".toolhost/tool/evil.wasm", permission.Ask},
		{"the plugin lock asks", defaults, "build", "toolhost.lock", permission.Ask},
		{"an OpenCode tool dropped into .opencode/tool asks", defaults, "build", ".opencode/tool/evil.ts", permission.Ask},
		{"an ordinary file is allowed", defaults, "build", "src/main.go", permission.Allow},
		{"a file named like .gitignore is allowed", defaults, "build", ".gitignore", permission.Allow},
		{"plan still denies .git", defaults, "plan", ".git/config", permission.Deny},
		{"plan still writes its plans", defaults, "plan", ".toolhost/plans/p.md", permission.Allow},
		{"a user's rule changes it", userAllows, "build", ".git/hooks/pre-commit", permission.Allow},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rule, _ := permission.Evaluate("edit", tt.pattern, tt.agents[tt.agent].Rules)
			if rule.Action != tt.want {
				t.Errorf("edit %q for %s = %s (%s), want %s", tt.pattern, tt.agent, rule.Action, rule, tt.want)
			}
		})
	}
	// Global flags come before the command: still the person's decision.
	// A binary named by its path (/usr/local/bin/toolhost trust --yes) is
	// asked by the bash analysis as its base name too, which these cover.
	for _, cmd := range []string{
		"toolhost trust --yes",
		"toolhost -C . trust --yes",
		"toolhost --dir=. trust -y",
		"toolhost --log-level error trust --yes",
	} {
		if rule, _ := permission.Evaluate("bash", cmd, defaults["build"].Rules); rule.Action != permission.Ask {
			t.Errorf("bash %s = %s; trusting the project is a person's decision", cmd, rule)
		}
	}
}
