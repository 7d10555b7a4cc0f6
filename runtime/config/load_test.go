package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/runtime/permission"
)

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	mkdir(t, filepath.Dir(path))
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// paths names the config locations of a fixture, for writing files.
type paths struct {
	global, root, rootDir, cwdDir, homeDir, envDir string
}

func (f fixture) paths() paths {
	return paths{
		global:  filepath.Join(f.xdg, "toolhost"),
		root:    f.root,
		rootDir: filepath.Join(f.root, ".toolhost"),
		cwdDir:  filepath.Join(f.cwd, ".toolhost"),
		homeDir: filepath.Join(f.home, ".toolhost"),
		envDir:  filepath.Join(f.home, "envdir"),
	}
}

// load runs Load in the fixture with XDG_CONFIG_HOME and TOOLHOST_CONFIG_DIR
// set to the fixture's, plus extra variables.
func (f fixture) load(extra map[string]string) (*Loaded, error) {
	env := map[string]string{"XDG_CONFIG_HOME": f.xdg, "TOOLHOST_CONFIG_DIR": f.paths().envDir}
	for k, v := range extra {
		env[k] = v
	}
	o := f.opts(env)
	return Load(LoadOptions{Directory: o.Directory, Home: o.Home, Env: o.Env})
}

func rule(perm, pattern string, a permission.Action, source string) permission.Rule {
	return permission.Rule{Permission: perm, Pattern: pattern, Action: a, Source: source}
}

func TestLoad(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		files func(p paths) map[string]string
		env   map[string]string
		check func(t *testing.T, f fixture, got *Loaded)
	}{
		{
			name:  "no config files at all gives the defaults",
			files: func(p paths) map[string]string { return nil },
			check: func(t *testing.T, f fixture, got *Loaded) {
				if len(got.Files) != 0 {
					t.Errorf("Files = %q, want none", got.Files)
				}
				if !reflect.DeepEqual(unplaced(got.Config), Default()) {
					t.Errorf("Config = %+v, want Default() %+v", got.Config, Default())
				}
				if want := Dirs(f.opts(map[string]string{"XDG_CONFIG_HOME": f.xdg, "TOOLHOST_CONFIG_DIR": f.paths().envDir})); !slices.Equal(got.Dirs, want) {
					t.Errorf("Dirs = %q, want %q", got.Dirs, want)
				}
			},
		},
		{
			name: "JSONC comments and trailing commas are accepted",
			files: func(p paths) map[string]string {
				return map[string]string{filepath.Join(p.global, "toolhost.jsonc"): `// global config
{
  /* the model */ "model": "gpt-4.1", // trailing comment
  "tools": {"webfetch": false,},
  "plugin": ["./a", "./b",],
}
`}
			},
			check: func(t *testing.T, f fixture, got *Loaded) {
				c := got.Config
				if c.Model != "gpt-4.1" || c.Tools["webfetch"] || len(c.Tools) != 1 || !slices.Equal(c.Plugin, []string{"./a", "./b"}) {
					t.Errorf("Config = %+v", c)
				}
			},
		},
		{
			name: "files merge in precedence order and the last to set a key wins",
			files: func(p paths) map[string]string {
				return map[string]string{
					filepath.Join(p.envDir, "toolhost.json"):     `{"model": "env-dir"}`,
					filepath.Join(p.homeDir, "toolhost.json"):    `{"model": "home", "default_agent": "home"}`,
					filepath.Join(p.cwdDir, "toolhost.jsonc"):    `{"model": "cwd-jsonc", "default_agent": "cwd-jsonc"}`,
					filepath.Join(p.cwdDir, "toolhost.json"):     `{"model": "cwd-json", "default_agent": "cwd-json", "bash": {"shell": "cwd"}}`,
					filepath.Join(p.rootDir, "toolhost.json"):    `{"model": "root-dir", "bash": {"shell": "root-dir"}}`,
					filepath.Join(p.root, "toolhost.json"):       `{"model": "root", "bash": {"shell": "root"}, "tools": {"a": true}}`,
					filepath.Join(p.global, "toolhost.json"):     `{"model": "global", "tools": {"a": false, "b": false}}`,
					filepath.Join(p.root, "toolhost.jsonc"):      `{"tools": {"c": true}}`,
					filepath.Join(p.global, "unrelated.json"):    `{"model": "never read"}`,
					filepath.Join(p.rootDir, "nested", "x.json"): `not read either`,
				}
			},
			check: func(t *testing.T, f fixture, got *Loaded) {
				p := f.paths()
				wantFiles := []string{
					filepath.Join(p.global, "toolhost.json"),
					filepath.Join(p.root, "toolhost.json"),
					filepath.Join(p.root, "toolhost.jsonc"),
					filepath.Join(p.rootDir, "toolhost.json"),
					filepath.Join(p.cwdDir, "toolhost.json"),
					filepath.Join(p.cwdDir, "toolhost.jsonc"),
					filepath.Join(p.homeDir, "toolhost.json"),
					filepath.Join(p.envDir, "toolhost.json"),
				}
				if !slices.Equal(got.Files, wantFiles) {
					t.Errorf("Files =\n  %q\nwant\n  %q", got.Files, wantFiles)
				}
				c := got.Config
				if c.Model != "env-dir" || c.DefaultAgent != "home" || c.Bash.Shell != "cwd" {
					t.Errorf("model %q default_agent %q shell %q; want env-dir, home, cwd", c.Model, c.DefaultAgent, c.Bash.Shell)
				}
				if want := map[string]bool{"a": true, "b": false, "c": true}; !reflect.DeepEqual(c.Tools, want) {
					t.Errorf("Tools = %v, want %v", c.Tools, want)
				}
			},
		},
		{
			name: "objects deep-merge across three levels while arrays are replaced and defaults stay",
			files: func(p paths) map[string]string {
				return map[string]string{
					filepath.Join(p.global, "toolhost.json"): `{
  "tool_output": {"max_lines": 100},
  "mcp": {"gh": {"type": "local", "command": ["gh-mcp"], "environment": {"A": "1", "B": "2"}}},
  "plugin": ["./one", "./two"]
}`,
					filepath.Join(p.root, "toolhost.json"): `{
  "mcp": {"gh": {"environment": {"B": "root"}, "timeout": 900}}
}`,
					filepath.Join(p.cwdDir, "toolhost.json"): `{
  "mcp": {"gh": {"environment": {"C": "cwd"}}},
  "plugin": ["./three"]
}`,
				}
			},
			check: func(t *testing.T, f fixture, got *Loaded) {
				c := got.Config
				gh := c.MCP["gh"]
				if want := map[string]string{"A": "1", "B": "root", "C": "cwd"}; !reflect.DeepEqual(gh.Environment, want) {
					t.Errorf("mcp.gh.environment = %v, want %v", gh.Environment, want)
				}
				if gh.Type != "local" || !slices.Equal(gh.Command, []string{"gh-mcp"}) || gh.Timeout != 900 {
					t.Errorf("mcp.gh = %+v", gh)
				}
				if !slices.Equal(c.Plugin, []string{"./three"}) {
					t.Errorf("plugin = %q, want the last file's array only", c.Plugin)
				}
				if c.ToolOutput.MaxLines != 100 || c.ToolOutput.MaxBytes != DefaultMaxBytes || c.Bash.TimeoutMS != DefaultBashTimeoutMS {
					t.Errorf("tool_output %+v bash %+v; want max_lines 100 with the other defaults kept", c.ToolOutput, c.Bash)
				}
			},
		},
		{
			name: "permission rules concatenate in file order and name their file and line",
			files: func(p paths) map[string]string {
				return map[string]string{
					filepath.Join(p.global, "toolhost.json"): `{
  "permission": {
    "bash": {
      "*": "ask",
      "git *": "allow"
    },
    "edit": "deny"
  }
}`,
					filepath.Join(p.root, "toolhost.jsonc"): `{
  // everything else is allowed here
  "permission": "allow",
}`,
					filepath.Join(p.cwdDir, "toolhost.json"): `{"permission": {"bash": {"rm *": "deny"}},
 "agent": {"plan": {"permission": {"edit": "deny"}}}}`,
					filepath.Join(p.homeDir, "toolhost.json"): `{
  "agent": {
    "plan": {"mode": "primary", "permission": {"edit": {"*.md": "allow"}}}
  }
}`,
				}
			},
			env: map[string]string{
				"TOOLHOST_CONFIG_CONTENT": `{"permission": {"webfetch": "ask"}}`,
				"TOOLHOST_PERMISSION":     `{"bash": {"git push *": "ask"}}`,
			},
			check: func(t *testing.T, f fixture, got *Loaded) {
				p := f.paths()
				g := filepath.Join(p.global, "toolhost.json")
				r := filepath.Join(p.root, "toolhost.jsonc")
				cwd := filepath.Join(p.cwdDir, "toolhost.json")
				home := filepath.Join(p.homeDir, "toolhost.json")
				want := permission.Ruleset{
					rule("bash", "*", permission.Ask, g+":4"),
					rule("bash", "git *", permission.Allow, g+":5"),
					rule("edit", "*", permission.Deny, g+":7"),
					rule("*", "*", permission.Allow, r+":3"),
					rule("bash", "rm *", permission.Deny, cwd+":1"),
					rule("webfetch", "*", permission.Ask, "TOOLHOST_CONFIG_CONTENT"),
					rule("bash", "git push *", permission.Ask, "TOOLHOST_PERMISSION"),
				}
				if !reflect.DeepEqual(got.Config.Permission.Rules, want) {
					t.Errorf("permission rules =\n  %v\nwant\n  %v", got.Config.Permission.Rules, want)
				}
				plan := got.Config.Agent["plan"]
				wantPlan := permission.Ruleset{
					rule("edit", "*", permission.Deny, cwd+":2"),
					rule("edit", "*.md", permission.Allow, home+":3"),
				}
				if !reflect.DeepEqual(plan.Permission.Rules, wantPlan) || plan.Mode != "primary" {
					t.Errorf("agent plan = %+v, want mode primary and rules %v", plan, wantPlan)
				}
			},
		},
		{
			name: "TOOLHOST_CONFIG_CONTENT is applied after every file",
			files: func(p paths) map[string]string {
				return map[string]string{
					filepath.Join(p.envDir, "toolhost.json"): `{"model": "file", "bash": {"shell": "zsh", "timeout_ms": 5}}`,
				}
			},
			env: map[string]string{"TOOLHOST_CONFIG_CONTENT": `{"model": "inline", /* JSONC too */ "bash": {"timeout_ms": 7},}`},
			check: func(t *testing.T, f fixture, got *Loaded) {
				c := got.Config
				if c.Model != "inline" || c.Bash.TimeoutMS != 7 || c.Bash.Shell != "zsh" {
					t.Errorf("model %q bash %+v; want inline, timeout 7, shell zsh", c.Model, c.Bash)
				}
			},
		},
		{
			name: "a single action in TOOLHOST_PERMISSION becomes one rule for everything",
			files: func(p paths) map[string]string {
				return map[string]string{filepath.Join(p.global, "toolhost.json"): `{"permission": {"bash": "ask"}}`}
			},
			env: map[string]string{"TOOLHOST_PERMISSION": `"deny"`},
			check: func(t *testing.T, f fixture, got *Loaded) {
				want := permission.Ruleset{
					rule("bash", "*", permission.Ask, filepath.Join(f.paths().global, "toolhost.json")+":1"),
					rule("*", "*", permission.Deny, "TOOLHOST_PERMISSION"),
				}
				if !reflect.DeepEqual(got.Config.Permission.Rules, want) {
					t.Errorf("rules = %v, want %v", got.Config.Permission.Rules, want)
				}
			},
		},
		{
			name: "{env:VAR} and {file:path} are substituted in string values",
			files: func(p paths) map[string]string {
				return map[string]string{
					filepath.Join(p.rootDir, "secrets", "key.txt"): "sk-from-file\n",
					filepath.Join(p.rootDir, "prompt.md"):          "line one\nline two\n",
					filepath.Join(p.rootDir, "toolhost.json"): `{
  "provider": {"openai": {"api_key": "{env:OPENAI_API_KEY}", "base_url": "{env:UNSET_VAR}"}},
  "search": {"api_key": "{file:secrets/key.txt}"},
  "agent": {"review": {"prompt": "{file:./prompt.md}"}},
  "mcp": {"gh": {"type": "remote", "url": "https://x.test/mcp", "headers": {"Authorization": "Bearer {env:GH_TOKEN}"}}},
  "model": "m"
}`,
				}
			},
			env: map[string]string{"OPENAI_API_KEY": "sk-env", "GH_TOKEN": "ghp_1"},
			check: func(t *testing.T, f fixture, got *Loaded) {
				c := got.Config
				if c.Provider["openai"].APIKey != "sk-env" || c.Provider["openai"].BaseURL != "" {
					t.Errorf("provider = %+v", c.Provider["openai"])
				}
				if c.Search == nil || c.Search.APIKey != "sk-from-file" {
					t.Errorf("search = %+v, want the file's trimmed content", c.Search)
				}
				if c.Agent["review"].Prompt != "line one\nline two" {
					t.Errorf("prompt = %q", c.Agent["review"].Prompt)
				}
				if h := c.MCP["gh"].Headers["Authorization"]; h != "Bearer ghp_1" {
					t.Errorf("header = %q", h)
				}
			},
		},
		{
			name: "empty and comment-only files are empty configs",
			files: func(p paths) map[string]string {
				return map[string]string{
					filepath.Join(p.global, "toolhost.json"):  "",
					filepath.Join(p.global, "toolhost.jsonc"): "// nothing yet\n/* really */",
				}
			},
			check: func(t *testing.T, f fixture, got *Loaded) {
				if len(got.Files) != 2 || !reflect.DeepEqual(unplaced(got.Config), Default()) {
					t.Errorf("Files %q Config %+v; want both read and the defaults", got.Files, got.Config)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			for path, content := range tt.files(f.paths()) {
				writeFile(t, path, content)
			}
			got, err := f.load(tt.env)
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			tt.check(t, f, got)
		})
	}
}

func TestLoadErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		files map[string]string // relative to the fixture's .toolhost in cwd
		env   map[string]string
		// want are substrings of the error; {dir} is the .toolhost path.
		want []string
		// first is the Key and Line of the first *Error.
		firstKey  string
		firstLine int
	}{
		{
			name:      "an unknown key names its line and suggests the known one",
			files:     map[string]string{"toolhost.json": "{\n  \"model\": \"m\",\n  \"tool_ouput\": {}\n}"},
			want:      []string{`{dir}/toolhost.json:3: unknown key "tool_ouput" (did you mean "tool_output"?)`},
			firstKey:  "tool_ouput",
			firstLine: 3,
		},
		{
			name:      "an unknown nested key shows its whole path",
			files:     map[string]string{"toolhost.jsonc": "{\n  // limits\n  \"tool_output\": {\n    \"max_line\": 5,\n  },\n}"},
			want:      []string{`{dir}/toolhost.jsonc:4: unknown key "tool_output.max_line" (did you mean "tool_output.max_lines"?)`},
			firstKey:  "tool_output.max_line",
			firstLine: 4,
		},
		{
			name:      "an unknown key with no close match lists the known keys",
			files:     map[string]string{"toolhost.json": `{"bash": {"zzzzzzzz": 1}}`},
			want:      []string{`{dir}/toolhost.json:1: unknown key "bash.zzzzzzzz"; known keys here: shell, timeout_ms`},
			firstKey:  "bash.zzzzzzzz",
			firstLine: 1,
		},
		{
			name:      "a wrong type names the line and key path",
			files:     map[string]string{"toolhost.json": "{\n  \"tool_output\": {\n    \"max_bytes\": 10,\n    \"max_lines\": \"many\"\n  }\n}"},
			want:      []string{`{dir}/toolhost.json:4: key "tool_output.max_lines": must be a number, got string`},
			firstKey:  "tool_output.max_lines",
			firstLine: 4,
		},
		{
			name:      "a fraction where a whole number belongs is refused",
			files:     map[string]string{"toolhost.json": `{"bash": {"timeout_ms": 1.5}}`},
			want:      []string{`key "bash.timeout_ms": must be a whole number, got 1.5`},
			firstKey:  "bash.timeout_ms",
			firstLine: 1,
		},
		{
			name:      "a string in an array of strings is checked element by element",
			files:     map[string]string{"toolhost.json": "{\"plugin\": [\n\"ok\",\n3]}"},
			want:      []string{`{dir}/toolhost.json:3: key "plugin[1]": must be a string, got number`},
			firstKey:  "plugin[1]",
			firstLine: 3,
		},
		{
			name:      "an invalid permission action names its line and suggests a real one",
			files:     map[string]string{"toolhost.json": "{\n  \"permission\": {\n    \"bash\": {\n      \"git *\": \"allow\",\n      \"*\": \"allw\"\n    }\n  }\n}"},
			want:      []string{`{dir}/toolhost.json:5: key "permission.bash.*": "allw" is not an action (did you mean "allow"?); use allow, ask or deny`},
			firstKey:  "permission.bash.*",
			firstLine: 5,
		},
		{
			name:      "an invalid agent permission is reported inside the agent",
			files:     map[string]string{"toolhost.json": "{\"agent\": {\"x\": {\n\"permission\": {\"edit\": 3}}}}"},
			want:      []string{`{dir}/toolhost.json:2: key "agent.x.permission.edit": must be allow, ask, deny or an object of pattern to action, got number`},
			firstKey:  "agent.x.permission.edit",
			firstLine: 2,
		},
		{
			name:      "an agent mode outside primary, subagent and all is refused at its line",
			files:     map[string]string{"toolhost.json": "{\"agent\": {\n  \"review\": {\n    \"mode\": \"secondary\"\n  }\n}}"},
			want:      []string{`{dir}/toolhost.json:3: key "agent.review.mode": must be primary, subagent or all, got "secondary"`},
			firstKey:  "agent.review.mode",
			firstLine: 3,
		},
		{
			name:      "a local MCP server without a command is reported at the server's key",
			files:     map[string]string{"toolhost.json": "{\"mcp\": {\n  \"gh\": {\"type\": \"local\"}\n}}"},
			want:      []string{`{dir}/toolhost.json:2: key "mcp.gh.command": is required for a local server`},
			firstKey:  "mcp.gh.command",
			firstLine: 2,
		},
		{
			name:      "an MCP type that is neither local nor remote is refused",
			files:     map[string]string{"toolhost.json": `{"mcp": {"gh": {"type": "stdio", "command": ["x"]}}}`},
			want:      []string{`key "mcp.gh.type": must be "local" or "remote", got "stdio"`},
			firstKey:  "mcp.gh.type",
			firstLine: 1,
		},
		{
			name:      "a store URL that is not PostgreSQL is refused at its line without echoing it",
			files:     map[string]string{"toolhost.json": "{\"store\": {\n \"url\": \"mysql://u:s3cret@db/x\"}}"},
			want:      []string{`{dir}/toolhost.json:2: key "store.url": has scheme "mysql"; want postgres://`},
			firstKey:  "store.url",
			firstLine: 2,
		},
		{
			name:      "a store URL without a host is refused",
			files:     map[string]string{"toolhost.json": `{"store": {"url": "postgres:///x"}}`},
			want:      []string{`key "store.url": names no host`},
			firstKey:  "store.url",
			firstLine: 1,
		},
		{
			name:      "a store URL that does not parse is refused without echoing it",
			files:     map[string]string{"toolhost.json": `{"store": {"url": "postgres://u:s3cret@[::1/x"}}`},
			want:      []string{`key "store.url": is not a URL`},
			firstKey:  "store.url",
			firstLine: 1,
		},
		{
			name:      "a remote MCP server needs an http URL",
			files:     map[string]string{"toolhost.json": "{\"mcp\": {\"gh\": {\"type\": \"remote\",\n \"url\": \"ftp://x\"}}}"},
			want:      []string{`{dir}/toolhost.json:2: key "mcp.gh.url": must be an http or https URL, got "ftp://x"`},
			firstKey:  "mcp.gh.url",
			firstLine: 2,
		},
		{
			name:      "an ask fallback other than deny, allow or inbox is refused at its line",
			files:     map[string]string{"toolhost.json": "{\"server\": {\n  \"ask_fallback\": \"yes\"\n}}"},
			want:      []string{`{dir}/toolhost.json:2: key "server.ask_fallback": must be "deny", "allow" or "inbox", got "yes"`},
			firstKey:  "server.ask_fallback",
			firstLine: 2,
		},
		{
			name:      "an ask fallback spelled in capitals is refused, not guessed",
			files:     map[string]string{"toolhost.json": `{"server": {"ask_fallback": "ALLOW"}}`},
			want:      []string{`key "server.ask_fallback": must be "deny", "allow" or "inbox", got "ALLOW"`},
			firstKey:  "server.ask_fallback",
			firstLine: 1,
		},
		{
			name:      "a tool prefix with characters clients drop is refused",
			files:     map[string]string{"toolhost.json": `{"server": {"tool_prefix": "tool host/"}}`},
			want:      []string{`key "server.tool_prefix": must be letters, digits, _ and -`},
			firstKey:  "server.tool_prefix",
			firstLine: 1,
		},
		{
			name:      "require_read must be a boolean",
			files:     map[string]string{"toolhost.json": `{"server": {"require_read": "no"}}`},
			want:      []string{`key "server.require_read": must be true or false, got string`},
			firstKey:  "server.require_read",
			firstLine: 1,
		},
		{
			name:      "a negative wasm limit is refused",
			files:     map[string]string{"toolhost.json": "{\"wasm\": {\"jira\": {\n\"memory_max_mb\": -1}}}"},
			want:      []string{`{dir}/toolhost.json:2: key "wasm.jira.memory_max_mb": must not be negative, got -1`},
			firstKey:  "wasm.jira.memory_max_mb",
			firstLine: 2,
		},
		{
			name:      "a tools key that is not a tool id or wildcard is refused",
			files:     map[string]string{"toolhost.json": "{\"tools\": {\"web fetch\": false}}"},
			want:      []string{`{dir}/toolhost.json:1: key "tools[\"web fetch\"]": is not a tool id or wildcard`},
			firstKey:  `tools["web fetch"]`,
			firstLine: 1,
		},
		{
			name:      "a syntax error names line and column",
			files:     map[string]string{"toolhost.json": "{\n  \"model\": \"m\"\n  \"tools\": {}\n}"},
			want:      []string{`{dir}/toolhost.json:3: syntax error at column 3: `},
			firstLine: 3,
		},
		{
			name:      "a document that is not an object is refused",
			files:     map[string]string{"toolhost.json": "\n[1, 2]"},
			want:      []string{`{dir}/toolhost.json:2: config must be a JSON object, got array`},
			firstLine: 2,
		},
		{
			name: "problems in several files are all reported",
			files: map[string]string{
				"toolhost.json":  `{"modle": "x"}`,
				"toolhost.jsonc": `{"bash": {"shell": 1}}`,
			},
			want: []string{
				`{dir}/toolhost.json:1: unknown key "modle" (did you mean "model"?)`,
				`{dir}/toolhost.jsonc:1: key "bash.shell": must be a string, got number`,
			},
			firstKey:  "modle",
			firstLine: 1,
		},
		{
			name:      "a bad TOOLHOST_PERMISSION is named by its variable",
			env:       map[string]string{"TOOLHOST_PERMISSION": `{"bash": "yes"}`},
			want:      []string{`TOOLHOST_PERMISSION:1: key "permission.bash": "yes" is not an action; use allow, ask or deny`},
			firstKey:  "permission.bash",
			firstLine: 1,
		},
		{
			name:      "a bad TOOLHOST_CONFIG_CONTENT is named by its variable",
			env:       map[string]string{"TOOLHOST_CONFIG_CONTENT": "{\n\"bash\": []}"},
			want:      []string{`TOOLHOST_CONFIG_CONTENT:2: key "bash": must be an object, got array`},
			firstKey:  "bash",
			firstLine: 2,
		},
		{
			name:      "a missing {file:} reference is an error with a remedy",
			files:     map[string]string{"toolhost.json": "{\n\"model\": \"{file:nope.txt}\"}"},
			want:      []string{`{dir}/toolhost.json:2: key "model": {file:nope.txt}: open {dir}/nope.txt: no such file or directory; create the file or remove the reference`},
			firstKey:  "model",
			firstLine: 2,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			dir := f.paths().cwdDir
			for name, content := range tt.files {
				writeFile(t, filepath.Join(dir, name), content)
			}
			_, err := f.load(tt.env)
			if err == nil {
				t.Fatal("Load succeeded, want an error")
			}
			if strings.Contains(err.Error(), "s3cret") {
				t.Errorf("the error repeats a password from the config: %v", err)
			}
			for _, w := range tt.want {
				w = strings.ReplaceAll(w, "{dir}", dir)
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error\n  %v\ndoes not contain\n  %s", err, w)
				}
			}
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("error %v is not a *config.Error", err)
			}
			if ce.Key != tt.firstKey || ce.Line != tt.firstLine {
				t.Errorf("first *Error has key %q line %d, want key %q line %d", ce.Key, ce.Line, tt.firstKey, tt.firstLine)
			}
		})
	}
}

func TestLoadValidatesTheMergedConfig(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	p := f.paths()
	// The server's type is in one file and its URL in another: neither file
	// is complete alone, the merge is.
	writeFile(t, filepath.Join(p.global, "toolhost.json"), `{"mcp": {"docs": {"type": "remote"}}}`)
	writeFile(t, filepath.Join(p.rootDir, "toolhost.json"), `{"mcp": {"docs": {"url": "http://127.0.0.1:9/mcp"}}}`)
	got, err := f.load(nil)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if s := got.Config.MCP["docs"]; s.Type != "remote" || s.URL != "http://127.0.0.1:9/mcp" {
		t.Errorf("mcp.docs = %+v", s)
	}
}

func TestLoadReportsAnUnreadableConfigFile(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	// A directory where a file is expected cannot be read.
	mkdir(t, filepath.Join(f.paths().rootDir, "toolhost.json"))
	_, err := f.load(nil)
	if err == nil || !strings.Contains(err.Error(), "load config "+filepath.Join(f.paths().rootDir, "toolhost.json")) {
		t.Fatalf("Load error = %v, want it to name the unreadable file", err)
	}
}

func TestDefaultReturnsAFreshValue(t *testing.T) {
	t.Parallel()
	a := Default()
	a.ToolOutput.MaxLines = 1
	if Default().ToolOutput.MaxLines != DefaultMaxLines {
		t.Error("changing one Default() result changed another")
	}
}

func FuzzLoad(f *testing.F) {
	f.Add([]byte(`{"model": "m", "permission": {"bash": {"*": "ask"}}}`), []byte(`"allow"`))
	f.Add([]byte("{\n// c\n\"agent\": {\"x\": {\"permission\": \"deny\", \"mode\": \"all\"}},}"), []byte(`{"edit": {"*.go": "deny"}}`))
	f.Add([]byte(`{"mcp": {"a": {"type": "local", "command": []}}, "tools": {"x": 1}}`), []byte(`[`))
	f.Add([]byte(`{"model": "{env:X}{file:}", "bash": {"timeout_ms": 1e400}}`), []byte(`{"a": null}`))
	f.Add([]byte(`/* only a comment */`), []byte(``))
	home := f.TempDir()
	f.Fuzz(func(t *testing.T, content, perm []byte) {
		env := map[string]string{
			"XDG_CONFIG_HOME":         filepath.Join(home, "xdg"),
			"TOOLHOST_CONFIG_CONTENT": string(content),
			"TOOLHOST_PERMISSION":     string(perm),
		}
		got, err := Load(LoadOptions{
			Directory: home, Worktree: home, Home: home,
			Env: func(k string) string { return env[k] },
		})
		if err != nil {
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("error %v is not a *config.Error", err)
			}
			return
		}
		if got.Config == nil {
			t.Fatal("no error and no config")
		}
		for _, r := range got.Config.Permission.Rules {
			if !r.Action.Valid() || r.Source == "" {
				t.Fatalf("loaded an invalid rule %v", r)
			}
		}
	})
}

// BenchmarkLoad measures a typical start-up load: a global file, a project
// root file and a .toolhost file with permissions and MCP servers. Its
// correctness twin is TestLoad.
func BenchmarkLoad(b *testing.B) {
	f := newFixture(b)
	p := f.paths()
	files := map[string]string{
		filepath.Join(p.global, "toolhost.jsonc"): "{\n// global\n\"model\": \"gpt-4.1\", \"permission\": {\"bash\": {\"*\": \"ask\", \"git *\": \"allow\"}},}",
		filepath.Join(p.root, "toolhost.json"):    `{"mcp": {"gh": {"type": "local", "command": ["gh-mcp"], "environment": {"A": "1"}}}, "tools": {"mcp_*": false}}`,
		filepath.Join(p.cwdDir, "toolhost.json"):  `{"agent": {"review": {"mode": "subagent", "permission": {"edit": "deny"}}}, "tool_output": {"max_lines": 500}}`,
	}
	for path, content := range files {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := f.load(nil); err != nil {
			b.Fatal(err)
		}
	}
}

func TestInstructionFiles(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		file    string // the project's toolhost.json, "" for none
		want    []string
		wantErr string
	}{
		{name: "no setting looks for AGENTS.md then CLAUDE.md", want: []string{"AGENTS.md", "CLAUDE.md"}},
		{name: "a list replaces the defaults", file: `{"instructions": ["RULES.md"]}`, want: []string{"RULES.md"}},
		{name: "an empty list turns instructions off", file: `{"instructions": []}`, want: []string{}},
		{name: "a path is refused naming the key", file: "{\n  \"instructions\": [\"docs/AGENTS.md\"]\n}", wantErr: `toolhost.json:2: key "instructions": entry 0 ("docs/AGENTS.md") is not a plain file name`},
		{name: "a parent directory is refused", file: `{"instructions": [".."]}`, wantErr: `entry 0 ("..") is not a plain file name`},
		{name: "an empty name is refused", file: `{"instructions": ["AGENTS.md", ""]}`, wantErr: `entry 1 ("") is not a plain file name`},
		{name: "a backslash path is refused", file: `{"instructions": ["a\\b.md"]}`, wantErr: `is not a plain file name`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			if tt.file != "" {
				writeFile(t, filepath.Join(f.paths().rootDir, "toolhost.json"), tt.file)
			}
			got, err := f.load(nil)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := got.Config.InstructionFiles(); !slices.Equal(got, tt.want) || got == nil {
				t.Fatalf("InstructionFiles = %#v, want %#v", got, tt.want)
			}
		})
	}
	var none *Config
	if got := none.InstructionFiles(); !slices.Equal(got, DefaultInstructions()) {
		t.Errorf("a nil Config's InstructionFiles = %q", got)
	}
}

// unplaced is c without what Load records to bind grants (grants.go),
// for comparing with a Config built in code.
func unplaced(c *Config) *Config {
	cp := *c
	cp.grants = grantPlaces{}
	return &cp
}
