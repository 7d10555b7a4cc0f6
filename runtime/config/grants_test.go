package config

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The tool files of a fixture, by who owns them.
type grantFiles struct {
	userWasm, userJS, projectWasm, projectJS, subWasm, outside string
}

func (f fixture) grantFiles() grantFiles {
	p := f.paths()
	return grantFiles{
		userWasm:    filepath.Join(p.global, "tool", "jira.wasm"),
		userJS:      filepath.Join(f.xdg, "opencode", "tool", "jira.ts"),
		projectWasm: filepath.Join(p.rootDir, "tool", "jira.wasm"),
		projectJS:   filepath.Join(f.root, ".opencode", "tool", "jira.ts"),
		subWasm:     filepath.Join(p.cwdDir, "tool", "jira.wasm"),
		outside:     filepath.Join(filepath.Dir(f.root), "other", ".toolhost", "tool", "jira.wasm"),
	}
}

func jira(path string) ToolFile { return ToolFile{Names: []string{"jira", "jira"}, Path: path} }

func TestGrantsStayWithTheToolsOfTheConfigThatMadeThem(t *testing.T) {
	t.Parallel()
	type want struct {
		file    func(grantFiles) string
		env     []string
		hosts   []string
		withold bool // a grant for the id exists but is withheld
	}
	tests := []struct {
		name  string
		files func(p paths, g grantFiles) map[string]string
		env   map[string]string
		wants []want
	}{
		{
			name: "your own config's grant reaches your own tools and no project's",
			files: func(p paths, g grantFiles) map[string]string {
				return map[string]string{filepath.Join(p.global, "toolhost.json"): `{"wasm": {"jira": {"env": ["JIRA_TOKEN"]}}}`}
			},
			wants: []want{
				{file: func(g grantFiles) string { return g.userWasm }, env: []string{"JIRA_TOKEN"}},
				{file: func(g grantFiles) string { return g.userJS }, env: []string{"JIRA_TOKEN"}},
				{file: func(g grantFiles) string { return g.projectWasm }, withold: true},
				{file: func(g grantFiles) string { return g.projectJS }, withold: true},
				{file: func(g grantFiles) string { return g.subWasm }, withold: true},
			},
		},
		{
			name: "a project's grant reaches the project's tools and not yours",
			files: func(p paths, g grantFiles) map[string]string {
				return map[string]string{filepath.Join(p.root, "toolhost.json"): `{"wasm": {"jira": {"allowed_hosts": ["evil.example"]}}}`}
			},
			wants: []want{
				{file: func(g grantFiles) string { return g.projectWasm }, hosts: []string{"evil.example"}},
				{file: func(g grantFiles) string { return g.projectJS }, hosts: []string{"evil.example"}},
				{file: func(g grantFiles) string { return g.userWasm }, withold: true},
				{file: func(g grantFiles) string { return g.userJS }, withold: true},
			},
		},
		{
			name: "grants for one id from both merge per tool, each keeping its own",
			files: func(p paths, g grantFiles) map[string]string {
				return map[string]string{
					filepath.Join(p.global, "toolhost.json"):  `{"wasm": {"jira": {"env": ["JIRA_TOKEN"]}}}`,
					filepath.Join(p.rootDir, "toolhost.json"): `{"wasm": {"jira": {"allowed_hosts": ["evil.example"]}}}`,
				}
			},
			wants: []want{
				{file: func(g grantFiles) string { return g.userJS }, env: []string{"JIRA_TOKEN"}, withold: true},
				{file: func(g grantFiles) string { return g.projectJS }, hosts: []string{"evil.example"}, withold: true},
			},
		},
		{
			name: "a subdirectory's config grants only the tools at or below it",
			files: func(p paths, g grantFiles) map[string]string {
				return map[string]string{filepath.Join(p.cwdDir, "toolhost.json"): `{"wasm": {"jira": {"env": ["X"]}}}`}
			},
			wants: []want{
				{file: func(g grantFiles) string { return g.subWasm }, env: []string{"X"}},
				{file: func(g grantFiles) string { return g.projectWasm }, withold: true},
			},
		},
		{
			name: "your own config grants a project's tool on purpose by its absolute path",
			files: func(p paths, g grantFiles) map[string]string {
				return map[string]string{filepath.Join(p.global, "toolhost.json"): `{"wasm": {"` + g.projectJS + `": {"env": ["JIRA_TOKEN"]}}}`}
			},
			wants: []want{
				{file: func(g grantFiles) string { return g.projectJS }, env: []string{"JIRA_TOKEN"}},
				{file: func(g grantFiles) string { return g.projectWasm }},
				{file: func(g grantFiles) string { return g.userJS }},
			},
		},
		{
			name: "a relative path in your own config grants nothing (it would mean every project's file)",
			files: func(p paths, g grantFiles) map[string]string {
				return map[string]string{filepath.Join(p.global, "toolhost.json"): `{"wasm": {".opencode/tool/jira.ts": {"env": ["JIRA_TOKEN"]}}}`}
			},
			wants: []want{{file: func(g grantFiles) string { return g.projectJS }}},
		},
		{
			name: "a project's path key cannot reach your tools or another project's",
			files: func(p paths, g grantFiles) map[string]string {
				return map[string]string{filepath.Join(p.root, "toolhost.json"): `{"wasm": {"` + g.userJS + `": {"env": ["A"]}, "../other/.toolhost/tool/jira.wasm": {"env": ["B"]}, ".toolhost/tool/jira.wasm": {"env": ["C"]}}}`}
			},
			wants: []want{
				{file: func(g grantFiles) string { return g.userJS }},
				{file: func(g grantFiles) string { return g.outside }},
				{file: func(g grantFiles) string { return g.projectWasm }, env: []string{"C"}},
			},
		},
		{
			name: "inline config from the environment is your own",
			files: func(p paths, g grantFiles) map[string]string {
				return nil
			},
			env: map[string]string{EnvConfigContent: `{"wasm": {"jira": {"env": ["JIRA_TOKEN"]}}}`},
			wants: []want{
				{file: func(g grantFiles) string { return g.userWasm }, env: []string{"JIRA_TOKEN"}},
				{file: func(g grantFiles) string { return g.projectWasm }, withold: true},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			g := f.grantFiles()
			for path, content := range tt.files(f.paths(), g) {
				writeFile(t, path, content)
			}
			mkdir(t, f.paths().rootDir, f.paths().cwdDir)
			l, err := f.load(tt.env)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.wants {
				file := w.file(g)
				wc, _, withheld := l.Config.WasmFor(jira(file))
				if !slices.Equal(wc.Env, w.env) || !slices.Equal(wc.AllowedHosts, w.hosts) {
					t.Errorf("%s: env %q hosts %q, want %q %q", file, wc.Env, wc.AllowedHosts, w.env, w.hosts)
				}
				if (len(withheld) > 0) != w.withold {
					t.Errorf("%s: withheld %v, want withheld %v", file, withheld, w.withold)
				}
				for _, wh := range withheld {
					if !strings.Contains(wh.Fix, file) {
						t.Errorf("%s: the fix %s does not name the file", file, wh.Fix)
					}
				}
			}
		})
	}
}

func TestGrantsReachAnInstalledPackageByNameFromAnyConfig(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	writeFile(t, filepath.Join(f.root, "toolhost.json"), `{"wasm": {"notes": {"config": {"token_env": "NOTES_TOKEN"}}}}`)
	l, err := f.load(nil)
	if err != nil {
		t.Fatal(err)
	}
	wc, key, _ := l.Config.WasmFor(ToolFile{Names: []string{"notes"}, Path: "/cache/plugins/x/notes.wasm", Package: true})
	if key != "wasm.notes" || wc.Config["token_env"] != "NOTES_TOKEN" {
		t.Errorf("package grant = %q %v, want wasm.notes with its config", key, wc)
	}
	wc, _, _ = l.Config.WasmFor(ToolFile{Names: []string{"notes"}, Path: "/cache/plugins/x/notes.wasm"})
	if len(wc.Config) != 0 {
		t.Errorf("a folder module outside the project got %v, want nothing", wc.Config)
	}
}

func TestGrantWithheldSaysWhatWouldGrantItWithoutSecrets(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	writeFile(t, filepath.Join(f.xdg, "toolhost", "toolhost.json"), `{"wasm": {"jira": {"env": ["JIRA_TOKEN"], "config": {"token": "s3cret", "user_env": "JIRA_USER"}}}}`)
	l, err := f.load(nil)
	if err != nil {
		t.Fatal(err)
	}
	file := f.grantFiles().projectJS
	_, _, withheld := l.Config.WasmFor(jira(file))
	if len(withheld) != 1 {
		t.Fatalf("withheld = %v, want one", withheld)
	}
	msg := withheld[0].String()
	for _, want := range []string{`"wasm": {"jira"`, file, "JIRA_TOKEN", "JIRA_USER"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q does not contain %q", msg, want)
		}
	}
	if strings.Contains(msg, "s3cret") {
		t.Errorf("message %q quotes a config value", msg)
	}
}

func TestGrantsOfAConfigBuiltInCodeFollowTheName(t *testing.T) {
	t.Parallel()
	c := &Config{Wasm: map[string]WasmConfig{"jira": {Env: []string{"X"}}}}
	if wc, _, _ := c.WasmFor(jira("/anywhere/jira.wasm")); !slices.Equal(wc.Env, []string{"X"}) {
		t.Errorf("env = %q, want the name's grant", wc.Env)
	}
}

func TestGrantKeyProblemsNameARelativePathInYourOwnConfig(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	writeFile(t, filepath.Join(f.xdg, "toolhost", "toolhost.json"), `{"wasm": {".toolhost/tool/jira.wasm": {"env": ["X"]}, "jira": {}}}`)
	l, err := f.load(nil)
	if err != nil {
		t.Fatal(err)
	}
	if p := l.Config.GrantKeyProblems(); len(p) != 1 || !strings.Contains(p[0], ".toolhost/tool/jira.wasm") {
		t.Errorf("problems = %q, want the relative key named", p)
	}
}

// A package's tool ids and module names are its author's choice: one
// that names a tool "jira" must not receive the grant your own config
// gives your own jira tool. A package is granted by its own name only.
func TestAPackageIsGrantedByItsNameNotByTheIdsOfItsTools(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	writeFile(t, filepath.Join(f.paths().global, "toolhost.json"), `{"wasm": {"jira": {"env": ["JIRA_TOKEN"]}, "acme": {"env": ["ACME_TOKEN"]}}}`)
	l, err := f.load(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		names []string
		want  []string
	}{
		{"a package tool that takes the id of your own tool gets nothing of its grant", []string{"jira", "jira", "acme-tools"}, nil},
		{"a package module named after your tool gets nothing of its grant", []string{"search", "jira", "acme-tools"}, nil},
		{"a package is granted by its own name", []string{"acme_search", "main", "acme"}, []string{"ACME_TOKEN"}},
		{"a one-module package whose tool has its name", []string{"acme", "acme", "acme"}, []string{"ACME_TOKEN"}},
	} {
		wc, _, _ := l.Config.WasmFor(ToolFile{Names: c.names, Path: "/cache/plugins/p/m.wasm", Dir: "/cache/plugins/p", Package: true})
		if !slices.Equal(wc.Env, c.want) {
			t.Errorf("%s: env = %v, want %v", c.name, wc.Env, c.want)
		}
	}
}
