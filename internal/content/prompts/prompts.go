// Package prompts finds the prompts a project offers — its skills and its
// commands — and fills them in, for front ends that serve prompts (the MCP
// server's prompts/list and prompts/get).
//
// A skill is a SKILL.md under skill/ or skills/ of a config directory
// (the files the skill tool loads), offered as a prompt without
// arguments whose text is the skill's instructions. A command is an
// OpenCode-style Markdown file, command/<name>.md or commands/<name>.md:
// YAML front matter (description, and optionally arguments) and a
// template. In the template, $ARGUMENTS is everything the user gave, $1 …
// $9 its words, and ${name} a declared argument. A word "@path" embeds a
// project file and "@scheme://…" a resource (through Resolver): images
// become image content, other files embedded resources, placed before the
// text. OpenCode's !`command` shell expansion is not supported: a prompt
// never runs anything.
//
// A reference written in the template names what the project's author
// chose. A reference that an argument fills in (@${uri}) comes from the
// client, so it may only name a resource the server already serves
// (Resolver.Resource), never a file path; anything else fails.
//
// Later config directories win over earlier ones, and commands over
// skills of the same name, as the config directories' order says.
//
// It must not import mcp or runtime.
package prompts

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"go.yaml.in/yaml/v4"

	"github.com/toolhost/toolhost/internal/content/skill"
)

// MaxFile caps a command file (internal/content/skill caps a SKILL.md alike).
const MaxFile = 256 << 10

// Kinds of prompt.
const (
	KindSkill   = "skill"
	KindCommand = "command"
)

// Prompt is one skill or command.
type Prompt struct {
	Name        string
	Description string
	Kind        string
	Arguments   []Argument
	// Template is the text after the front matter.
	Template string
	// File is where it was read from.
	File string
}

// Argument is one argument of a command.
type Argument struct {
	Name        string   `yaml:"name"`
	Description string   `yaml:"description"`
	Required    bool     `yaml:"required"`
	Values      []string `yaml:"values"` // suggestions for completion
}

// ArgumentsName is the one argument of a command that declares none but
// uses $ARGUMENTS or $1 … $9.
const ArgumentsName = "arguments"

var nameRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`) })

// Discover returns the prompts of dirs (lowest precedence first), sorted
// by name. Files that cannot be read or parsed are returned as errors
// beside the prompts that could.
func Discover(dirs []string) ([]Prompt, []error) {
	byName := map[string]Prompt{}
	var errs []error
	for _, dir := range dirs {
		ps, es := skills(dir)
		errs = append(errs, es...)
		for _, p := range ps {
			byName[p.Name] = p
		}
		for _, sub := range []string{"command", "commands"} {
			ps, es := commands(filepath.Join(dir, sub))
			errs = append(errs, es...)
			for _, p := range ps {
				byName[p.Name] = p
			}
		}
	}
	out := make([]Prompt, 0, len(byName))
	for _, p := range byName {
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b Prompt) int { return strings.Compare(a.Name, b.Name) })
	return out, errs
}

// skills are the skills of one config directory as prompts, found and
// read as the skill tool does (internal/content/skill); a name a prompt cannot
// carry is an error.
func skills(dir string) ([]Prompt, []error) {
	infos, errs := skill.Discover([]string{dir})
	var out []Prompt
	for _, s := range infos {
		if !nameRe().MatchString(s.Name) {
			errs = append(errs, fmt.Errorf("%s: skill name %q: use letters, digits, _ . - (at most 64)", s.Location, s.Name))
			continue
		}
		out = append(out, Prompt{Name: s.Name, Description: s.Description, Kind: KindSkill, Template: strings.TrimSpace(s.Content), File: s.Location})
	}
	return out, errs
}

var (
	positionalRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$(ARGUMENTS|[1-9])`) })
	argNameRe    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,63}$`) })
	namedRe      = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]{0,63})\}`) })
)

func commands(root string) ([]Prompt, []error) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, nil
	}
	var out []Prompt
	var errs []error
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".md")
		if !ok || e.IsDir() || strings.HasPrefix(name, ".") {
			continue
		}
		path := filepath.Join(root, e.Name())
		if !nameRe().MatchString(name) {
			errs = append(errs, fmt.Errorf("%s: command name %q: use letters, digits, _ . - (at most 64)", path, name))
			continue
		}
		var fm struct {
			Description string     `yaml:"description"`
			Arguments   []Argument `yaml:"arguments"`
		}
		body, err := readFrontMatter(path, &fm)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		p := Prompt{Name: name, Description: fm.Description, Kind: KindCommand, Arguments: fm.Arguments, Template: body, File: path}
		if err := checkArguments(p); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", path, err))
			continue
		}
		if len(p.Arguments) == 0 && positionalRe().MatchString(body) {
			p.Arguments = []Argument{{Name: ArgumentsName, Description: "What to pass to the command ($ARGUMENTS; its words are $1, $2 …)"}}
		}
		out = append(out, p)
	}
	return out, errs
}

// checkArguments refuses declared arguments a template could not use
// safely: bad or repeated names, and ${name} of an undeclared one.
func checkArguments(p Prompt) error {
	var names []string
	for _, a := range p.Arguments {
		if !argNameRe().MatchString(a.Name) {
			return fmt.Errorf("argument name %q: use letters, digits and _ (at most 64), not starting with a digit", a.Name)
		}
		if slices.Contains(names, a.Name) {
			return fmt.Errorf("argument %q is declared twice", a.Name)
		}
		names = append(names, a.Name)
	}
	for _, m := range namedRe().FindAllStringSubmatch(p.Template, -1) {
		if !slices.Contains(names, m[1]) {
			return fmt.Errorf("the template uses ${%s}, which is not declared under arguments in the front matter", m[1])
		}
	}
	return nil
}

// readFrontMatter reads a Markdown file with optional YAML front matter
// into fm and returns the body.
func readFrontMatter(path string, fm any) (string, error) {
	info, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if info.Size() > MaxFile {
		return "", fmt.Errorf("%s: %d bytes, more than the %d a prompt file may have", path, info.Size(), MaxFile)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	data = bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
	rest, ok := bytes.CutPrefix(data, []byte("---\n"))
	if !ok {
		return string(data), nil
	}
	var head, body []byte
	if i := bytes.Index(rest, []byte("\n---\n")); i >= 0 {
		head, body = rest[:i], rest[i+len("\n---\n"):]
	} else if h, ok := bytes.CutSuffix(bytes.TrimRight(rest, "\n"), []byte("\n---")); ok {
		head = h
	} else {
		return "", fmt.Errorf("%s: front matter has no closing --- line", path)
	}
	if err := yaml.Unmarshal(head, fm); err != nil {
		return "", fmt.Errorf("%s: front matter: %w", path, err)
	}
	return strings.TrimSpace(string(body)), nil
}
