package runtime

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/runtime/config"
)

// loadConfig loads one project toolhost.jsonc with content, so rules and
// keys carry their file and line.
func loadConfig(t *testing.T, content string) (*config.Config, string) {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "toolhost.jsonc")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	env := func(k string) string {
		if k == "XDG_CONFIG_HOME" {
			return filepath.Join(home, ".config")
		}
		return ""
	}
	l, err := config.Load(config.LoadOptions{Directory: dir, Worktree: dir, Home: home, Env: env})
	if err != nil {
		t.Fatal(err)
	}
	return l.Config, path
}

func TestUnknownConfigKeysAreFoundWithTheirLineAndTheLikelyName(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		config string
		known  []string
		want   []string // UnknownKey.String() of each, with FILE for the path
	}{
		{"a misspelt permission names its line and the permission meant",
			"{\n  \"permission\": {\n    \"bsah\": {\"*\": \"ask\"}\n  }\n}",
			nil, []string{`FILE:3: permission key "bsah" names no tool or permission toolhost knows; its rules apply to nothing (did you mean "bash"?)`}},
		{"a misspelt tool id names its line and the tool meant",
			"{\n  // off\n  \"tools\": {\"webfech\": false}\n}",
			nil, []string{`FILE:3: tools key "webfech" names no tool toolhost knows; it turns nothing on or off (did you mean "webfetch"?)`}},
		{"an agent's keys are checked and named with the agent",
			`{"agent": {"plan": {"tools": {"bash": false, "tsak": false}, "permission": {"edti": "deny"}}}}`,
			nil, []string{
				`FILE:1: agent.plan.permission key "edti" names no tool or permission toolhost knows; its rules apply to nothing (did you mean "edit"?)`,
				`FILE:1: agent.plan.tools key "tsak" names no tool toolhost knows; it turns nothing on or off (did you mean "task"?)`,
			}},
		{"a name far from every known one gets no suggestion",
			`{"permission": {"zzzzzzzzzz": "deny"}}`,
			nil, []string{`FILE:1: permission key "zzzzzzzzzz" names no tool or permission toolhost knows; its rules apply to nothing`}},
		{"known tools, declared permissions and built-in rules' permissions pass",
			`{"permission": {"bash": "ask", "edit": "deny", "deploy": "ask", "external_directory": "deny", "doom_loop": "allow"}, "tools": {"webfetch": false, "write": false}}`,
			nil, nil},
		{"patterns are not checked",
			`{"permission": {"mcp_*": "deny", "*": "ask"}, "tools": {"jira_*": false, "?ead": true}}`,
			nil, nil},
		{"names the caller knows of pass, and a prefix covers its tools",
			`{"permission": {"jira": "ask", "github_create_issue": "deny"}, "tools": {"github_search": false}}`,
			[]string{"jira", "github_"}, nil},
		{"disabling a language server that is not built in names its line and the server meant",
			"{\"lsp\": {\n  \"gpls\": {\"disabled\": true},\n  \"clangd\": {\"disabled\": true},\n  \"mine\": {\"command\": [\"m\"], \"extensions\": [\".m\"]}}}",
			nil, []string{`FILE:2: lsp key "gpls" names no built-in language server; disabling it turns nothing off (did you mean "gopls"?)`}},
		{"a permission repeated is reported once",
			"{\"permission\": {\n\"bsah\": {\"a\": \"ask\",\n \"b\": \"deny\"}}}",
			nil, []string{`FILE:2: permission key "bsah" names no tool or permission toolhost knows; its rules apply to nothing (did you mean "bash"?)`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg, path := loadConfig(t, tc.config)
			r := newTestRegistry(t, cfg)
			for _, id := range []string{"bash", "read", "webfetch", "task"} {
				r.Add(SourceBuiltin, echoTool(id))
			}
			r.Add(SourceBuiltin, Declare(echoTool("write"), Traits{Permission: "edit"}), Declare(echoTool("deployer"), Traits{Permission: "deploy"}))
			var got []string
			for _, k := range r.UnknownConfigKeys(tc.known...) {
				got = append(got, strings.ReplaceAll(k.String(), path, "FILE"))
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Fatalf("warnings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

func TestNamesOfToolsThatFailedToLoadAndOfMCPServersAreKnown(t *testing.T) {
	t.Parallel()
	cfg, _ := loadConfig(t, `{"mcp": {"jira": {"type": "local", "command": ["jira-mcp"]}}}`)
	failed := []LoadError{{Source: SourceWasm, File: "/p/.toolhost/tools/deploy.wasm", Reason: "does not compile"}}
	got := KnownWithoutTools(cfg, failed)
	want := []string{"deploy", "deploy_", "jira", "jira_"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("KnownWithoutTools = %v, want %v", got, want)
	}
}
