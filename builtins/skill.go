package builtins

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/template"

	"go.yaml.in/yaml/v4"

	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/permission"
)

// skillToolName is the skill tool's id, and the permission it asks (the
// pattern is the skill's name).
const skillToolName = "skill"

// skillFileName is the file that makes a directory a skill.
const skillFileName = "SKILL.md"

// skillFileSample caps how many of a skill's other files are listed.
const skillFileSample = 10

// skillRoots are the folders of a config directory that hold skills.
var skillRoots = []string{"skill", "skills"}

//go:embed skill.txt
var skillDescriptionTemplate string

var skillDescription = template.Must(template.New("skill.txt").
	Funcs(template.FuncMap{"escape": template.HTMLEscapeString}).
	Parse(skillDescriptionTemplate))

// skillParams are the skill tool's arguments.
type skillParams struct {
	Name string `json:"name" jsonschema_description:"The name of the skill from available_skills"`
}

// skillInfo is one discovered skill.
type skillInfo struct {
	Name        string
	Description string
	Location    string // the SKILL.md file
	Content     string // the body after the front matter
}

// skillFrontMatter is the YAML header of a SKILL.md file; other keys
// (license, allowed-tools, metadata) are ignored.
type skillFrontMatter struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
}

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
			var b strings.Builder
			if err := skillDescription.Execute(&b, map[string]any{"Skills": usable}); err != nil {
				return "", fmt.Errorf("render skill.txt: %w", err)
			}
			return b.String(), nil
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

// discoverSkills finds every skill under the skill roots of dirs, sorted by
// name; a later directory's skill replaces an earlier one of the same name.
// Files that cannot be read or lack a name or description are skipped and
// reported in problems.
func discoverSkills(dirs []string) (skills []skillInfo, problems []error) {
	byName := map[string]skillInfo{}
	for _, dir := range dirs {
		for _, root := range skillRoots {
			root := filepath.Join(dir, root)
			if st, err := os.Stat(root); err != nil || !st.IsDir() {
				continue
			}
			_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
				if err != nil {
					problems = append(problems, fmt.Errorf("scan %s: %w", path, err))
					return nil
				}
				if d.IsDir() || d.Name() != skillFileName {
					return nil
				}
				s, err := parseSkill(path)
				if err != nil {
					problems = append(problems, err)
					return nil
				}
				byName[s.Name] = s
				return nil
			})
		}
	}
	for _, s := range byName {
		skills = append(skills, s)
	}
	slices.SortFunc(skills, func(a, b skillInfo) int { return strings.Compare(a.Name, b.Name) })
	return skills, problems
}

// parseSkill reads a SKILL.md: a front matter block between "---" lines,
// then the instructions.
func parseSkill(path string) (skillInfo, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return skillInfo{}, fmt.Errorf("read skill %s: %w", path, err)
	}
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	rest, ok := strings.CutPrefix(text, "---\n")
	if !ok {
		return skillInfo{}, fmt.Errorf("skill %s: no front matter; start the file with a --- line, name: and description:, and another --- line", path)
	}
	header, body, ok := strings.Cut("\n"+rest, "\n---")
	if !ok {
		return skillInfo{}, fmt.Errorf("skill %s: front matter is not closed; add a --- line after it", path)
	}
	// The closing line may carry trailing spaces; the body starts after it.
	if nl := strings.IndexByte(body, '\n'); nl >= 0 {
		if strings.TrimSpace(body[:nl]) != "" {
			return skillInfo{}, fmt.Errorf("skill %s: front matter is not closed by a line of its own", path)
		}
		body = body[nl+1:]
	} else {
		body = ""
	}
	var fm skillFrontMatter
	if err := yaml.Unmarshal([]byte(header), &fm); err != nil {
		return skillInfo{}, fmt.Errorf("skill %s: front matter: %w", path, err)
	}
	fm.Name, fm.Description = strings.TrimSpace(fm.Name), strings.TrimSpace(fm.Description)
	if fm.Name == "" || fm.Description == "" {
		return skillInfo{}, fmt.Errorf("skill %s: front matter needs both name and description", path)
	}
	return skillInfo{Name: fm.Name, Description: fm.Description, Location: path, Content: body}, nil
}
