package builtins

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	"github.com/toolhost/toolhost/internal/content/skill"
	"github.com/toolhost/toolhost/internal/content/textfill"
	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/permission"
)

// skillToolName is the skill tool's id, and the permission it asks (the
// pattern is the skill's name).
const skillToolName = "skill"

// skillFileName is the file that makes a directory a skill.
const skillFileName = skill.FileName

// skillFileSample caps how many of a skill's other files are listed.
const skillFileSample = 10

//go:embed skill.txt
var skillDescriptionTemplate string

//go:embed skill_none.txt
var skillDescriptionNone string

// skillDescription lists skills in skill.txt's <available_skills>, each
// name and description escaped as text/template's HTMLEscapeString did
// (the skills are a user's files; a description must not close the
// element).
func skillDescription(skills []skillInfo) string {
	if len(skills) == 0 {
		return skillDescriptionNone
	}
	var b strings.Builder
	for _, s := range skills {
		fmt.Fprintf(&b, "\n  <skill>\n    <name>%s</name>\n    <description>%s</description>\n  </skill>", skillEscaper.Replace(s.Name), skillEscaper.Replace(s.Description))
	}
	return textfill.MustFill("skill.txt", skillDescriptionTemplate, map[string]any{"Skills": b.String()})
}

// skillEscaper is text/template's HTMLEscapeString.
var skillEscaper = strings.NewReplacer("\x00", "\uFFFD", `"`, "&#34;", "'", "&#39;", "&", "&amp;", "<", "&lt;", ">", "&gt;")

// skillParams are the skill tool's arguments.
type skillParams struct {
	Name string `json:"name" jsonschema_description:"The name of the skill from available_skills"`
}

// skillInfo is one discovered skill; discovery and parsing are shared
// with the MCP server's prompts (internal/content/skill).
type skillInfo = skill.Info

var (
	discoverSkills = skill.Discover
	parseSkill     = skill.Parse
)

// Skill returns the skill tool. Skills are SKILL.md files, with `name` and
// `description` in YAML front matter, anywhere under skill/ or skills/ of
// the given config directories (lowest precedence first: a later
// directory's skill replaces an earlier one of the same name). Files are
// read again on every Init and call, so skills added while the host runs
// are found.
//
// The description lists the skills the agent may load — those its rules do
// not deny for permission "skill" with the skill's name as pattern. A call
// asks that permission and returns the skill's instructions, its base
// directory and a sample of its other files. Result metadata: name, dir.
func Skill(dirs []string) runtime.Tool {
	dirs = slices.Clone(dirs)
	return runtime.Declare(runtime.DefineDynamic(skillToolName,
		func(_ context.Context, ic runtime.InitContext) (string, error) {
			skills, _ := discoverSkills(dirs)
			var rules permission.Ruleset
			if ic.Agent != nil {
				rules = ic.Agent.Rules
			}
			var usable []skillInfo
			for _, s := range skills {
				if rule, _ := permission.Evaluate(skillToolName, s.Name, rules); rule.Action != permission.Deny {
					usable = append(usable, s)
				}
			}
			return skillDescription(usable), nil
		},
		func(ctx context.Context, p skillParams, tc *runtime.Context) (runtime.Result, error) {
			return loadSkill(ctx, dirs, p, tc)
		}), skillTraits)
}

// skillTraits: asks "skill" for the skill's name itself.
var skillTraits = runtime.Traits{ChecksOwnPermission: true, Hints: &runtime.Hints{}}

func loadSkill(ctx context.Context, dirs []string, p skillParams, tc *runtime.Context) (runtime.Result, error) {
	skills, problems := discoverSkills(dirs)
	i := slices.IndexFunc(skills, func(s skillInfo) bool { return s.Name == p.Name })
	if i < 0 {
		names := make([]string, len(skills))
		for i, s := range skills {
			names[i] = s.Name
		}
		available := strings.Join(names, ", ")
		if available == "" {
			available = "none"
		}
		msg := fmt.Sprintf("skill %q not found. Available skills: %s", p.Name, available)
		if len(problems) > 0 {
			msg += "\nSkill files that could not be loaded:\n" + errors.Join(problems...).Error()
		}
		return runtime.Result{}, errors.New(msg)
	}
	s := skills[i]
	if err := tc.Ask(ctx, permission.Request{
		Permission: skillToolName,
		Patterns:   []string{s.Name},
		Always:     []string{s.Name},
		Metadata:   map[string]any{"location": s.Location},
	}); err != nil {
		return runtime.Result{}, err
	}

	dir := filepath.Dir(s.Location)
	var files []string
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || len(files) >= skillFileSample {
			return fs.SkipAll
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return fs.SkipDir
			}
			return nil
		}
		if d.Name() != skillFileName {
			files = append(files, "<file>"+path+"</file>")
		}
		return nil
	})
	base := (&url.URL{Scheme: "file", Path: filepath.ToSlash(dir)}).String()
	out := strings.Join([]string{
		fmt.Sprintf("<skill_content name=%q>", s.Name),
		"# Skill: " + s.Name,
		"",
		strings.TrimSpace(s.Content),
		"",
		"Base directory for this skill: " + base,
		"Relative paths in this skill (e.g., scripts/, reference/) are relative to this base directory.",
		"Note: file list is sampled.",
		"",
		"<skill_files>",
		strings.Join(files, "\n"),
		"</skill_files>",
		"</skill_content>",
	}, "\n")
	return runtime.Result{
		Title:    "Loaded skill: " + s.Name,
		Output:   out,
		Metadata: map[string]any{"name": s.Name, "dir": dir},
	}, nil
}
