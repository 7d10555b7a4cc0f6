package permission

import (
	"encoding/json"
	"maps"
	"slices"
	"testing"
)

// decode parses a "permission" config value, keeping key order.
func decode(t *testing.T, js string) Ruleset {
	t.Helper()
	var c Config
	if err := json.Unmarshal([]byte(js), &c); err != nil {
		t.Fatalf("decode %s: %v", js, err)
	}
	return c.Rules
}

func TestEvaluateLastMatchWins(t *testing.T) {
	t.Parallel()
	allow := Rule{Permission: "bash", Pattern: "*", Action: Allow, Source: "a"}
	ask := Rule{Permission: "bash", Pattern: "*", Action: Ask, Source: "b"}
	deny := Rule{Permission: "bash", Pattern: "*", Action: Deny, Source: "c"}
	// Every ordering of three rules that all match: the last one decides.
	for _, order := range [][]Rule{
		{allow, ask, deny}, {allow, deny, ask}, {ask, allow, deny},
		{ask, deny, allow}, {deny, allow, ask}, {deny, ask, allow},
	} {
		name := "in the order " + string(order[0].Action) + ", " + string(order[1].Action) + ", " + string(order[2].Action) + " the last rule decides"
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, matched := Evaluate("bash", "ls", Ruleset(order))
			if got != order[2] {
				t.Errorf("decision %v, want %v", got, order[2])
			}
			if !slices.Equal(matched, Ruleset(order)) {
				t.Errorf("matched %v, want all three in order", matched)
			}
			// Split across sets, flattening keeps the order.
			got, _ = Evaluate("bash", "ls", Ruleset{order[0]}, nil, Ruleset{order[1], order[2]})
			if got != order[2] {
				t.Errorf("across sets: decision %v, want %v", got, order[2])
			}
		})
	}
}

func TestEvaluate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		config     string
		permission string
		pattern    string
		want       Action
	}{
		{"a deny-all followed by allow bash allows bash", `{"*":"deny","bash":"allow"}`, "bash", "ls", Allow},
		{"a deny-all followed by allow bash still denies edit", `{"*":"deny","bash":"allow"}`, "edit", "a.go", Deny},
		{"allow bash followed by a deny-all denies bash", `{"bash":"allow","*":"deny"}`, "bash", "ls", Deny},
		{"a bash deny-all with a git exception denies rm", `{"bash":{"*":"deny","git *":"allow"}}`, "bash", "rm foo", Deny},
		{"a bash deny-all with a git exception allows git status", `{"bash":{"*":"deny","git *":"allow"}}`, "bash", "git status", Allow},
		{"a bash deny-all with a git exception allows bare git", `{"bash":{"*":"deny","git *":"allow"}}`, "bash", "git", Allow},
		{"a git allow before a deny-all is overridden", `{"bash":{"git *":"allow","*":"deny"}}`, "bash", "git status", Deny},
		{"a permission wildcard covers mcp tools", `{"mcp_*":"deny"}`, "mcp_github_search", "*", Deny},
		{"a permission wildcard leaves other tools alone", `{"mcp_*":"deny"}`, "bash", "ls", Ask},
		{"a single action applies to everything", `"allow"`, "webfetch", "https://example.com", Allow},
		{"nothing matching means ask", `{"edit":"deny"}`, "bash", "ls", Ask},
		{"an env file asks under an allow-all for read", `{"read":{"*":"allow","*.env":"ask","*.env.example":"allow"}}`, "read", "app/.env", Ask},
		{"an env example is allowed again", `{"read":{"*":"allow","*.env":"ask","*.env.example":"allow"}}`, "read", "app/.env.example", Allow},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, _ := Evaluate(tt.permission, tt.pattern, decode(t, tt.config))
			if got.Action != tt.want {
				t.Errorf("Evaluate(%q, %q) under %s = %v, want %s", tt.permission, tt.pattern, tt.config, got, tt.want)
			}
		})
	}
}

func TestEvaluateWithoutAMatchAsksWithADefaultRule(t *testing.T) {
	t.Parallel()
	got, matched := Evaluate("bash", "ls", Ruleset{{Permission: "edit", Pattern: "*", Action: Allow}})
	if got.Action != Ask || got.Source != NoRuleSource || matched != nil {
		t.Errorf("got %v, matched %v; want ask from %q and no matches", got, matched, NoRuleSource)
	}
}

func TestDecideAgreesWithEvaluate(t *testing.T) {
	t.Parallel()
	sets := []Ruleset{
		decode(t, `{"*":"allow","bash":{"*":"ask","git *":"allow","git push *":"deny"},"read":{"*.env":"ask"}}`),
		decode(t, `{"bash":{"rm *":"deny"},"mcp_*":"ask"}`),
	}
	for _, c := range [][2]string{
		{"bash", "git status"}, {"bash", "git push origin"}, {"bash", "rm -rf /"}, {"bash", "ls"},
		{"read", "a/.env"}, {"read", "a.go"}, {"mcp_x", "*"}, {"edit", "a.go"},
	} {
		want, _ := Evaluate(c[0], c[1], sets...)
		if got := decide(c[0], c[1], sets...); got != want.Action {
			t.Errorf("decide(%q, %q) = %s, Evaluate says %s", c[0], c[1], got, want.Action)
		}
	}
}

func TestDisabled(t *testing.T) {
	t.Parallel()
	perms := []string{"bash", "edit", "read", "todowrite", "todoread", "mcp_github_search"}
	tests := []struct {
		name   string
		config string
		want   []string
	}{
		{"a partial deny does not disable bash", `{"*":"allow","bash":{"rm *":"deny"}}`, nil},
		{"an exception after a deny-all keeps bash", `{"bash":{"*":"deny","git *":"allow"}}`, nil},
		{"a deny-all for bash disables bash", `{"bash":"deny"}`, []string{"bash"}},
		{"denying edit disables edit and nothing else", `{"edit":"deny"}`, []string{"edit"}},
		{"todo permissions are separate", `{"todowrite":"deny"}`, []string{"todowrite"}},
		{"a permission wildcard disables matching tools", `{"mcp_*":"deny"}`, []string{"mcp_github_search"}},
		{"a later allow re-enables a tool", `{"*":"deny","read":"allow"}`, []string{"bash", "edit", "mcp_github_search", "todoread", "todowrite"}},
		{"ask does not disable", `{"bash":"ask"}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := slices.Sorted(maps.Keys(Disabled(perms, decode(t, tt.config))))
			if !slices.Equal(got, tt.want) {
				t.Errorf("Disabled under %s = %v, want %v", tt.config, got, tt.want)
			}
		})
	}
}

// BenchmarkEvaluate measures one decision against a realistic rule set: the
// defaults, an agent's rules, a user config of a few dozen rules and some
// session approvals.
func BenchmarkEvaluate(b *testing.B) {
	var c Config
	if err := json.Unmarshal([]byte(`{"*":"allow","doom_loop":"ask","external_directory":"ask",
		"read":{"*":"allow","*.env":"ask","*.env.*":"ask","*.env.example":"allow"},
		"bash":{"*":"ask","git status *":"allow","git log *":"allow","git diff *":"allow","git show *":"allow",
			"ls *":"allow","cat *":"allow","grep *":"allow","rg *":"allow","find *":"allow","go test *":"allow",
			"go build *":"allow","go vet *":"allow","make *":"allow","npm test *":"allow","npm run *":"allow",
			"rm *":"deny","git push *":"ask","git reset *":"ask","sudo *":"deny"},
		"edit":{"*":"allow","*.lock":"deny","vendor/*":"deny"},
		"mcp_*":"ask","webfetch":"ask"}`), &c); err != nil {
		b.Fatal(err)
	}
	approvals := Ruleset{{Permission: "bash", Pattern: "docker *", Action: Allow}, {Permission: "webfetch", Pattern: "https://pkg.go.dev/*", Action: Allow}}
	b.Logf("%d rules", len(c.Rules)+len(approvals))
	b.Run("Evaluate", func(b *testing.B) {
		for b.Loop() {
			Evaluate("bash", "go test ./runtime/permission/... -run TestMatch", c.Rules, approvals)
		}
	})
	b.Run("decide", func(b *testing.B) {
		for b.Loop() {
			decide("bash", "go test ./runtime/permission/... -run TestMatch", c.Rules, approvals)
		}
	})
}
