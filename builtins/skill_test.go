package builtins

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/permission"
)

func writeSkillFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// skillDirs lays out a global and a project config directory with skills
// under both folder names, a nested one, an override and broken files.
func skillDirs(t *testing.T) (global, project string) {
	t.Helper()
	root := t.TempDir()
	global, project = filepath.Join(root, "global"), filepath.Join(root, "project", ".toolhost")
	writeSkillFile(t, filepath.Join(global, "skills", "deploy", "SKILL.md"),
		"---\nname: deploy\ndescription: Old global deploy steps\n---\nold body\n")
	writeSkillFile(t, filepath.Join(global, "skill", "pdf", "SKILL.md"),
		"---\nname: pdf\ndescription: \"Fill & merge <PDF> forms\"\nlicense: MIT\n---\n# PDF\nUse scripts/fill.py.\n")
	writeSkillFile(t, filepath.Join(global, "skill", "pdf", "scripts", "fill.py"), "print('fill')\n")
	writeSkillFile(t, filepath.Join(project, "skills", "deploy", "SKILL.md"),
		"\ufeff---\r\nname: deploy\r\ndescription: 'Deploy this project: build, push, roll out'\r\n---\r\nRun `make deploy`.\r\n")
	writeSkillFile(t, filepath.Join(project, "skills", "team", "ops", "secret-rotate", "SKILL.md"),
		"---\nname: secret-rotate\ndescription: Rotate production secrets\n---\nRotate them.\n")
	writeSkillFile(t, filepath.Join(project, "skills", "broken", "SKILL.md"), "no front matter here\n")
	writeSkillFile(t, filepath.Join(project, "skills", "nameless", "SKILL.md"), "---\ndescription: lacks a name\n---\nbody\n")
	writeSkillFile(t, filepath.Join(project, "elsewhere", "loose", "SKILL.md"), "---\nname: loose\ndescription: not under skill/ or skills/\n---\n")
	return global, project
}

func TestSkillDiscovery(t *testing.T) {
	t.Parallel()
	global, project := skillDirs(t)
	skills, problems := discoverSkills([]string{global, project})
	var names []string
	for _, s := range skills {
		names = append(names, s.Name+"="+s.Description)
	}
	want := "deploy=Deploy this project: build, push, roll out|pdf=Fill & merge <PDF> forms|secret-rotate=Rotate production secrets"
	if got := strings.Join(names, "|"); got != want {
		t.Errorf("skills\n%s\nwant\n%s", got, want)
	}
	if len(problems) != 2 {
		t.Errorf("problems %v, want the file without front matter and the one without a name", problems)
	}
	if skills[0].Content != "Run `make deploy`.\n" {
		t.Errorf("the project's deploy skill should replace the global one, with CRLF and BOM handled; body %q", skills[0].Content)
	}
}

func TestSkillDescriptionListsOnlyPermittedSkills(t *testing.T) {
	t.Parallel()
	global, project := skillDirs(t)
	tests := []struct {
		name  string
		rules permission.Ruleset
		shown []string
		gone  []string
	}{
		{
			name:  "without rules every skill is listed",
			shown: []string{"<name>deploy</name>", "<name>pdf</name>", "<name>secret-rotate</name>", "Fill &amp; merge &lt;PDF&gt; forms"},
		},
		{
			name: "a denied pattern hides the matching skills",
			rules: permission.Ruleset{
				{Permission: "*", Pattern: "*", Action: permission.Allow},
				{Permission: "skill", Pattern: "secret-*", Action: permission.Deny},
			},
			shown: []string{"<name>deploy</name>", "<name>pdf</name>"},
			gone:  []string{"secret-rotate"},
		},
		{
			name: "an ask rule still lists the skill",
			rules: permission.Ruleset{
				{Permission: "skill", Pattern: "*", Action: permission.Deny},
				{Permission: "skill", Pattern: "pdf", Action: permission.Ask},
			},
			shown: []string{"<name>pdf</name>"},
			gone:  []string{"deploy", "secret-rotate"},
		},
		{
			name:  "when everything is denied the description says none are available",
			rules: permission.Ruleset{{Permission: "skill", Pattern: "*", Action: permission.Deny}},
			shown: []string{"No skills are currently available."},
			gone:  []string{"<available_skills>"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			def, err := Skill([]string{global, project}).Init(context.Background(), runtime.InitContext{Agent: &runtime.Agent{Name: "a", Rules: tt.rules}})
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range tt.shown {
				if !strings.Contains(def.Description, s) {
					t.Errorf("description lacks %q:\n%s", s, def.Description)
				}
			}
			for _, s := range tt.gone {
				if strings.Contains(def.Description, s) {
					t.Errorf("description shows %q:\n%s", s, def.Description)
				}
			}
		})
	}
}

func TestSkillCall(t *testing.T) {
	t.Parallel()
	global, project := skillDirs(t)
	var asked []permission.Request
	tc := runtime.NewContext(runtime.Context{SessionID: "s"}, nil, func(_ context.Context, req permission.Request) error {
		asked = append(asked, req)
		if req.Patterns[0] == "secret-rotate" {
			return &permission.RejectedError{Permission: req.Permission}
		}
		return nil
	})
	tool := Skill([]string{global, project})

	res, err := invokeTool(t, tool, tc, skillParams{Name: "pdf"})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(global, "skill", "pdf")
	for _, want := range []string{
		`<skill_content name="pdf">`,
		"# Skill: pdf\n\n# PDF\nUse scripts/fill.py.\n\n",
		"Base directory for this skill: file://" + filepath.ToSlash(dir),
		"<file>" + filepath.Join(dir, "scripts", "fill.py") + "</file>",
		"</skill_content>",
	} {
		if !strings.Contains(res.Output, want) {
			t.Errorf("output lacks %q:\n%s", want, res.Output)
		}
	}
	if strings.Contains(res.Output, "SKILL.md</file>") {
		t.Errorf("the file list includes SKILL.md itself")
	}
	if res.Title != "Loaded skill: pdf" || res.Metadata["dir"] != dir {
		t.Errorf("title %q metadata %v", res.Title, res.Metadata)
	}
	if len(asked) != 1 || asked[0].Permission != "skill" || asked[0].Patterns[0] != "pdf" || asked[0].Always[0] != "pdf" {
		t.Errorf("asked %+v, want skill/pdf", asked)
	}

	if _, err := invokeTool(t, tool, tc, skillParams{Name: "secret-rotate"}); permission.Kind(err) != "rejected" {
		t.Errorf("error %v, want the rejection unchanged", err)
	}

	_, err = invokeTool(t, tool, tc, skillParams{Name: "nope"})
	if err == nil || !strings.Contains(err.Error(), `skill "nope" not found. Available skills: deploy, pdf, secret-rotate`) {
		t.Errorf("error %v, want a not-found error naming the available skills", err)
	}
	if err != nil && !strings.Contains(err.Error(), "nameless") {
		t.Errorf("the not-found error should name the skill files that failed to load: %v", err)
	}
}

func TestSkillFindsSkillsAddedAfterConstruction(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tool := Skill([]string{dir})
	tc := runtime.NewContext(runtime.Context{SessionID: "s"}, nil, allowAll)
	if _, err := invokeTool(t, tool, tc, skillParams{Name: "late"}); err == nil || !strings.Contains(err.Error(), "Available skills: none") {
		t.Fatalf("error %v, want not found with none available", err)
	}
	writeSkillFile(t, filepath.Join(dir, "skill", "late", "SKILL.md"), "---\nname: late\ndescription: added later\n---\nhello\n")
	res, err := invokeTool(t, tool, tc, skillParams{Name: "late"})
	if err != nil || !strings.Contains(res.Output, "hello") {
		t.Errorf("got %q, %v; want the new skill", res.Output, err)
	}
}

func TestParseSkillFrontMatter(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, content string
		wantName      string
		wantDesc      string
		wantBody      string
		wantErr       string
	}{
		{"plain keys", "---\nname: a\ndescription: b c\n---\nbody\n", "a", "b c", "body\n", ""},
		{"quoted values with colons", "---\nname: \"a\"\ndescription: 'x: y'\n---\n", "a", "x: y", "", ""},
		{"a folded multi-line description", "---\nname: a\ndescription: >\n  one\n  two\n---\nb", "a", "one two", "b", ""},
		{"other keys are ignored", "---\nname: a\ndescription: b\nallowed-tools: [read]\nmetadata:\n  k: v\n---\n", "a", "b", "", ""},
		{"no front matter", "# title\n", "", "", "", "no front matter"},
		{"unclosed front matter", "---\nname: a\ndescription: b\n", "", "", "", "not closed"},
		{"missing description", "---\nname: a\n---\n", "", "", "", "needs both"},
		{"empty front matter", "---\n---\nbody", "", "", "", "needs both"},
		{"invalid YAML", "---\nname: [a\ndescription: b\n---\n", "", "", "", "front matter"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "SKILL.md")
			writeSkillFile(t, path, tt.content)
			s, err := parseSkill(path)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s.Name != tt.wantName || s.Description != tt.wantDesc || s.Content != tt.wantBody {
				t.Errorf("got %q %q %q, want %q %q %q", s.Name, s.Description, s.Content, tt.wantName, tt.wantDesc, tt.wantBody)
			}
		})
	}
}
