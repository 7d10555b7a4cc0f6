// Package skill finds and reads skills: SKILL.md files, with a YAML front
// matter naming and describing them, under skill/ or skills/ of a config
// directory (OpenCode's and Claude Code's layout). The skill tool loads
// them for the model, and the MCP server offers them as prompts; both read
// them here, so a file is a skill, with the same name and text, for both.
package skill

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v4"
)

// FileName is the file that makes a directory a skill.
const FileName = "SKILL.md"

// MaxFile caps a SKILL.md: a skill is instructions for a model, and a
// file far larger is a mistake that must not be read whole on every
// listing.
const MaxFile = 256 << 10

// Roots are the folders of a config directory that hold skills.
var Roots = []string{"skill", "skills"}

// Info is one skill.
type Info struct {
	Name        string
	Description string
	Location    string // the SKILL.md file
	Content     string // the body after the front matter
}

// frontMatter is the YAML header of a SKILL.md file; other keys (license,
// allowed-tools, metadata) are ignored.
type frontMatter struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
}

// Discover finds every skill under the skill roots of dirs, sorted by
// name; a later directory's skill replaces an earlier one of the same name.
// Files that cannot be read or lack a name or description are skipped and
// reported in problems.
func Discover(dirs []string) (skills []Info, problems []error) {
	byName := map[string]Info{}
	for _, dir := range dirs {
		for _, root := range Roots {
			root := filepath.Join(dir, root)
			if st, err := os.Stat(root); err != nil || !st.IsDir() {
				continue
			}
			_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
				if err != nil {
					problems = append(problems, fmt.Errorf("scan %s: %w", path, err))
					return nil
				}
				if d.IsDir() || d.Name() != FileName {
					return nil
				}
				s, err := Parse(path)
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
	slices.SortFunc(skills, func(a, b Info) int { return strings.Compare(a.Name, b.Name) })
	return skills, problems
}

// Parse reads a SKILL.md: a front matter block between "---" lines,
// then the instructions.
func Parse(path string) (Info, error) {
	if info, err := os.Stat(path); err == nil && info.Size() > MaxFile {
		return Info{}, fmt.Errorf("skill %s: %d bytes, more than the %d a skill may have", path, info.Size(), MaxFile)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return Info{}, fmt.Errorf("read skill %s: %w", path, err)
	}
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	rest, ok := strings.CutPrefix(text, "---\n")
	if !ok {
		return Info{}, fmt.Errorf("skill %s: no front matter; start the file with a --- line, name: and description:, and another --- line", path)
	}
	header, body, ok := strings.Cut("\n"+rest, "\n---")
	if !ok {
		return Info{}, fmt.Errorf("skill %s: front matter is not closed; add a --- line after it", path)
	}
	// The closing line may carry trailing spaces; the body starts after it.
	if nl := strings.IndexByte(body, '\n'); nl >= 0 {
		if strings.TrimSpace(body[:nl]) != "" {
			return Info{}, fmt.Errorf("skill %s: front matter is not closed by a line of its own", path)
		}
		body = body[nl+1:]
	} else {
		body = ""
	}
	var fm frontMatter
	if err := yaml.Unmarshal([]byte(header), &fm); err != nil {
		return Info{}, fmt.Errorf("skill %s: front matter: %w", path, err)
	}
	fm.Name, fm.Description = strings.TrimSpace(fm.Name), strings.TrimSpace(fm.Description)
	if fm.Name == "" || fm.Description == "" {
		return Info{}, fmt.Errorf("skill %s: front matter needs both name and description", path)
	}
	return Info{Name: fm.Name, Description: fm.Description, Location: path, Content: body}, nil
}
