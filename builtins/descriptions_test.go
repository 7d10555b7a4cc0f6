package builtins

import (
	"os"
	"strings"
	"testing"
	"text/template"

	"github.com/toolhost/toolhost/internal/content/textfill"
	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/config"
)

// The descriptions were text/template templates; they are filled by plain
// Go now (internal/content/textfill says why). These tests render the templates as
// they were (the placeholder-only ones are unchanged; skill and task are
// kept in testdata/templates as they were) with text/template, which a
// test may link, and require the same bytes.

func executeTemplate(t *testing.T, name, text string, funcs template.FuncMap, data any) string {
	t.Helper()
	var b strings.Builder
	tmpl := template.Must(template.New(name).Funcs(funcs).Option("missingkey=error").Parse(text))
	if err := tmpl.Execute(&b, data); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return b.String()
}

func TestPlaceholderDescriptionsReadAsTheirTemplatesDid(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, text string
		data       map[string]any
		got        string
	}{
		{"bash", bashDescriptionTemplate, map[string]any{
			"DefaultTimeoutMS": config.DefaultBashTimeoutMS, "DefaultTimeoutMinutes": config.DefaultBashTimeoutMS / 60_000,
			"KillGraceMS": bashKillGrace.Milliseconds(), "MaxLines": config.DefaultMaxLines, "MaxBytes": config.DefaultMaxBytes,
		}, bashDescription()},
		{"batch", batchDescriptionTemplate, map[string]any{"MaxCalls": batchMaxCalls}, batchDescription()},
		{"codesearch", codesearchDescriptionTemplate, map[string]any{
			"MinTokens": codesearchMinTokens, "MaxTokens": codesearchMaxTokens, "DefaultTokens": codesearchDefaultTokens,
		}, codesearchDescription()},
		{"lsp", lspDescriptionTemplate, map[string]any{"MaxPerFile": lspMaxPerFile, "MaxOtherFiles": lspMaxOtherFiles}, lspDescription()},
		{"read", readTemplate, map[string]any{"DefaultLimit": readDefaultLimit, "MaxLineLength": readMaxLineLength, "MaxKB": readMaxBytes / 1024}, readDescription()},
		{"websearch", websearchDescriptionTemplate, map[string]any{"Year": 2026, "DefaultResults": websearchResults},
			textfill.MustFill("websearch", websearchDescriptionTemplate, map[string]any{"Year": 2026, "DefaultResults": websearchResults})},
	} {
		want := executeTemplate(t, c.name, c.text, nil, c.data)
		if c.got != want {
			t.Errorf("%s's description differs from its template's:\n got %q\nwant %q", c.name, c.got, want)
		}
		if strings.Contains(c.got, "{{") {
			t.Errorf("%s's description has a placeholder left: %q", c.name, c.got)
		}
	}
}

// Names and descriptions come from a user's SKILL.md files and subagent
// configs: quotes, markup, a plus sign, a NUL, text that looks like a
// placeholder.
var awkward = []string{"plain", `a "quoted" <b>&'x'</b> + y`, "nul\x00byte", "{{.Skills}} {{.Agents}}", ""}

func TestTheSkillAndTaskDescriptionsReadAsTheirTemplatesDid(t *testing.T) {
	t.Parallel()
	oldSkill, err := os.ReadFile("testdata/templates/skill.txt")
	if err != nil {
		t.Fatal(err)
	}
	oldTask, err := os.ReadFile("testdata/templates/task.txt")
	if err != nil {
		t.Fatal(err)
	}
	for n := range 4 {
		var skills []skillInfo
		var agents []*runtime.Agent
		for i := range n {
			name, desc := awkward[i%len(awkward)], awkward[(i+1)%len(awkward)]
			skills = append(skills, skillInfo{Name: name, Description: desc})
			agents = append(agents, &runtime.Agent{Name: name, Description: desc})
		}
		want := executeTemplate(t, "skill.txt", string(oldSkill), template.FuncMap{"escape": template.HTMLEscapeString}, map[string]any{"Skills": skills})
		if got := skillDescription(skills); got != want {
			t.Errorf("skill with %d skills:\n got %q\nwant %q", n, got, want)
		}
		want = executeTemplate(t, "task.txt", string(oldTask), nil, map[string]any{"Agents": agents})
		if got := taskDescription(agents); got != want {
			t.Errorf("task with %d agents:\n got %q\nwant %q", n, got, want)
		}
	}
}
