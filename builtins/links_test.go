package builtins

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/permission"
)

// linkCase is one entry of testdata/symlinks.json; its comment explains the
// fixture and the fields.
type linkCase struct {
	Name       string            `json:"name"`
	Needs      string            `json:"needs"`
	Links      map[string]string `json:"links"`
	ExtraRules map[string]string `json:"extraRules"`
	Deny       *linkExpect       `json:"deny"`
	Ask        *linkExpect       `json:"ask"`
	Allow      *linkExpect       `json:"allow"`
}

type linkExpect struct {
	Via     []string `json:"via"`
	Names   []string `json:"names"`
	Skipped int      `json:"skipped"`
}

func loadLinkCases(t *testing.T) []linkCase {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "symlinks.json"))
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Comment string     `json:"comment"`
		Cases   []linkCase `json:"cases"`
	}
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&file); err != nil {
		t.Fatalf("testdata/symlinks.json: %v", err)
	}
	if len(file.Cases) == 0 {
		t.Fatal("testdata/symlinks.json has no cases")
	}
	return file.Cases
}

// linkFixture builds the tree the data file describes and returns its
// resolved root.
func linkFixture(t *testing.T, links map[string]string) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"project/a.txt":            "MARK SAFE a",
		"project/sub/b.txt":        "MARK SAFE b",
		"outside/secret":           "MARK SECRET file",
		"outside/dir/inner.txt":    "MARK SECRET inner",
		"outside/dir/deep/d.txt":   "MARK SECRET deep",
		"far/x.txt":                "MARK SECRET far",
		"project/.git/placeholder": "", // the project is a repository
	}
	for rel, content := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for at, to := range links {
		if err := os.Symlink(strings.ReplaceAll(to, "{root}", root), filepath.Join(root, filepath.FromSlash(at))); err != nil {
			t.Skip("no symbolic links here:", err)
		}
	}
	return root
}

// linkRegistry is a registry for the project under root whose build agent
// allows every tool and has the given external_directory rules; nobody
// answers questions, so "ask" is refused.
func linkRegistry(t *testing.T, project string, external permission.Ruleset) *runtime.Registry {
	t.Helper()
	rules := append(permission.Ruleset{{Permission: "*", Pattern: "*", Action: permission.Allow}}, external...)
	reg, err := runtime.NewRegistry(runtime.Options{
		Directory: project, Worktree: project, DataDir: t.TempDir(),
		Agents: map[string]*runtime.Agent{"build": {Name: "build", Rules: rules}},
	})
	if err != nil {
		t.Fatal(err)
	}
	reg.Add(runtime.SourceBuiltin, Glob(), Grep(), List(), Read())
	return reg
}

func callTool(t *testing.T, reg *runtime.Registry, tool string, args any) (runtime.Result, error) {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	return reg.Call(context.Background(), runtime.Call{Tool: tool, Args: raw, Agent: "build", SessionID: "ses"})
}

// reported is the project paths a glob, grep or list output names, sorted.
func reported(tool, project, out string) []string {
	var got []string
	lines := strings.Split(out, "\n")
	switch tool {
	case "glob", "grep":
		for _, l := range lines {
			if tool == "grep" {
				l, _ = strings.CutSuffix(l, ":")
			}
			if rel, ok := strings.CutPrefix(l, project+"/"); ok {
				got = append(got, rel)
			}
		}
	case "list":
		// A tree: directories end in "/" and are indented two spaces per
		// level; files are indented one level deeper than their directory.
		var dirs []string
		for _, l := range lines[1:] {
			if l == "" {
				break
			}
			name := strings.TrimLeft(l, " ")
			depth := (len(l) - len(name)) / 2
			if d, ok := strings.CutSuffix(name, "/"); ok {
				dirs = append(dirs[:depth-1], d)
				continue
			}
			got = append(got, strings.Join(append(slices.Clone(dirs[:depth-1]), name), "/"))
		}
	}
	slices.Sort(got)
	return got
}

func TestFileToolsFollowSymlinksOutOfTheProjectOnlyWhenAllowed(t *testing.T) {
	t.Parallel()
	for _, lc := range loadLinkCases(t) {
		t.Run(lc.Name, func(t *testing.T) {
			t.Parallel()
			if lc.Needs != "" {
				if _, err := os.Stat(lc.Needs); err != nil {
					if os.Getenv("CI") == "true" && goruntime.GOOS == "linux" {
						t.Fatalf("%s is missing on a Linux CI runner: %v", lc.Needs, err)
					}
					t.Skipf("needs %s: %v", lc.Needs, err)
				}
			}
			root := linkFixture(t, lc.Links)
			project := filepath.Join(root, "project")
			var extra permission.Ruleset
			for pattern, action := range lc.ExtraRules {
				extra = append(extra, permission.Rule{Permission: runtime.PermissionExternalDirectory, Pattern: strings.ReplaceAll(pattern, "{root}", root), Action: permission.Action(action)})
			}
			ext := func(pattern string, a permission.Action) permission.Rule {
				return permission.Rule{Permission: runtime.PermissionExternalDirectory, Pattern: pattern, Action: a}
			}
			modes := []struct {
				name   string
				rules  permission.Ruleset
				expect *linkExpect
			}{
				{"deny", permission.Ruleset{ext("*", permission.Deny)}, lc.Deny},
				{"ask", permission.Ruleset{ext("*", permission.Ask)}, cmpOr(lc.Ask, lc.Deny)},
				{"allow", permission.Ruleset{ext("*", permission.Ask), ext(filepath.Join(root, "outside", "*"), permission.Allow)}, lc.Allow},
			}
			for _, m := range modes {
				if m.expect == nil {
					t.Fatalf("case has no %s expectation", m.name)
				}
				reg := linkRegistry(t, project, append(m.rules, extra...))
				base := []string{"a.txt", "sub/b.txt"}
				read := slices.Sorted(slices.Values(append(slices.Clone(base), m.expect.Via...)))
				listed := slices.Sorted(slices.Values(append(slices.Clone(read), m.expect.Names...)))
				for _, call := range []struct {
					tool string
					args any
					want []string
				}{
					{"glob", globParams{Pattern: "**"}, listed},
					{"list", listParams{}, listed},
					{"grep", grepParams{Pattern: "MARK"}, read},
				} {
					res, err := callTool(t, reg, call.tool, call.args)
					if err != nil {
						t.Fatalf("%s, %s: %v", m.name, call.tool, err)
					}
					if got := reported(call.tool, project, res.Output); !slices.Equal(got, call.want) {
						t.Errorf("%s, %s reported %q, want %q\n%s", m.name, call.tool, got, call.want, res.Output)
					}
					gotSkipped, _ := res.Metadata["skippedLinks"].(int)
					if gotSkipped != m.expect.Skipped {
						t.Errorf("%s, %s: skippedLinks = %v, want %d\n%s", m.name, call.tool, res.Metadata["skippedLinks"], m.expect.Skipped, res.Output)
					}
					hasFooter := strings.Contains(res.Output, "leading outside the project")
					if hasFooter != (m.expect.Skipped > 0) {
						t.Errorf("%s, %s: footer shown = %v, want %v\n%s", m.name, call.tool, hasFooter, m.expect.Skipped > 0, res.Output)
					}
					if m.name != "allow" && strings.Contains(res.Output, "SECRET") {
						t.Errorf("%s, %s: content from outside the project leaked:\n%s", m.name, call.tool, res.Output)
					}
				}
			}
		})
	}
}

func cmpOr(a, b *linkExpect) *linkExpect {
	if a != nil {
		return a
	}
	return b
}

func TestFileToolsGivenALinkOutOfTheProjectAreDecidedByItsTarget(t *testing.T) {
	t.Parallel()
	root := linkFixture(t, map[string]string{"project/lnk": "{root}/outside/secret", "project/lnkdir": "{root}/outside/dir"})
	project := filepath.Join(root, "project")
	ext := func(pattern string, a permission.Action) permission.Rule {
		return permission.Rule{Permission: runtime.PermissionExternalDirectory, Pattern: pattern, Action: a}
	}
	calls := []struct {
		tool string
		args any
		show string // what an allowed call shows
	}{
		{"read", readParams{FilePath: "lnk"}, "SECRET file"},
		{"grep", grepParams{Pattern: "MARK", Path: "lnk"}, "SECRET file"},
		{"grep", grepParams{Pattern: "MARK", Path: "lnkdir"}, "SECRET inner"},
		{"glob", globParams{Pattern: "*.txt", Path: "lnkdir"}, "inner.txt"},
		{"list", listParams{Path: filepath.Join(project, "lnkdir")}, "inner.txt"},
		{"read", readParams{FilePath: "lnkdir"}, "inner.txt"},
	}
	modes := []struct {
		name    string
		rules   permission.Ruleset
		allowed bool
	}{
		{"denied", permission.Ruleset{ext("*", permission.Deny)}, false},
		{"asked with nobody to answer", permission.Ruleset{ext("*", permission.Ask)}, false},
		{"refused though the link's own directory is allowed", permission.Ruleset{ext("*", permission.Ask), ext(filepath.Join(project, "*"), permission.Allow)}, false},
		{"allowed for the target", permission.Ruleset{ext("*", permission.Ask), ext(filepath.Join(root, "outside", "*"), permission.Allow)}, true},
	}
	for _, m := range modes {
		reg := linkRegistry(t, project, m.rules)
		for _, c := range calls {
			res, err := callTool(t, reg, c.tool, c.args)
			if !m.allowed {
				var denied *permission.DeniedError
				if !errors.As(err, &denied) || denied.Permission != runtime.PermissionExternalDirectory {
					t.Errorf("%s: %s %+v: err = %v, want external_directory denied", m.name, c.tool, c.args, err)
				}
				if strings.Contains(res.Output, "SECRET") || strings.Contains(res.Output, "inner.txt") {
					t.Errorf("%s: %s %+v leaked:\n%s", m.name, c.tool, c.args, res.Output)
				}
				continue
			}
			if err != nil || !strings.Contains(res.Output, c.show) {
				t.Errorf("%s: %s %+v: err = %v, output lacks %q:\n%s", m.name, c.tool, c.args, err, c.show, res.Output)
			}
		}
	}
}

// TestReadNeverShowsOutsideContentWhileADirectoryIsSwapped reads a file in
// a directory that another goroutine keeps swapping for a symlink to a
// secret outside the project, with external_directory denied: the open
// happens inside an os.Root of the project, so whatever the timing, the
// secret never appears.
func TestReadNeverShowsOutsideContentWhileADirectoryIsSwapped(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	project, outside := filepath.Join(base, "project"), filepath.Join(base, "outside")
	for _, d := range []string{filepath.Join(project, "d"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(project, "d", "f"), []byte("harmless\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "f"), []byte("SECRET\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	reg := linkRegistry(t, project, permission.Ruleset{{Permission: "external_directory", Pattern: "*", Action: permission.Deny}})
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		d, aside := filepath.Join(project, "d"), filepath.Join(project, "aside")
		for i := 0; i < 5000; i++ {
			select {
			case <-stop:
				return
			default:
			}
			_ = os.Rename(d, aside)
			_ = os.Symlink(outside, d)
			_ = os.Remove(d)
			_ = os.Rename(aside, d)
		}
	}()
	for i := 0; i < 300; i++ {
		res, err := callTool(t, reg, "read", map[string]any{"filePath": filepath.Join(project, "d", "f")})
		if err == nil && strings.Contains(res.Output, "SECRET") {
			t.Fatalf("read showed the outside secret on round %d:\n%s", i, res.Output)
		}
	}
	close(stop)
	<-done
}

// The footer of a walk that skipped links says how many and which links in
// the project, never where they lead: the names of places outside the
// project are not the model's to learn from a listing.
func TestSkippedLinksAreNamedByTheirOwnPathsNeverByTheirTargets(t *testing.T) {
	t.Parallel()
	root := linkFixture(t, map[string]string{
		"project/docs-link": "{root}/outside/secret-name",
		"project/sub/file":  "{root}/outside/secret-name/secret-file.txt",
	})
	if err := os.MkdirAll(filepath.Join(root, "outside", "secret-name"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "outside", "secret-name", "secret-file.txt"), []byte("MARK"), 0o644); err != nil {
		t.Fatal(err)
	}
	project := filepath.Join(root, "project")
	ext := func(pattern string, a permission.Action) permission.Rule {
		return permission.Rule{Permission: runtime.PermissionExternalDirectory, Pattern: pattern, Action: a}
	}
	for _, mode := range []struct {
		name  string
		rules permission.Ruleset
		says  string
	}{
		{"denied outright", permission.Ruleset{ext("*", permission.Deny)}, "denied"},
		{"denied by a rule naming the place", permission.Ruleset{ext("*", permission.Ask), ext(filepath.Join(root, "outside", "secret-name", "*"), permission.Deny)}, "denied"},
		{"asked about", permission.Ruleset{ext("*", permission.Ask)}, "would ask"},
	} {
		reg := linkRegistry(t, project, mode.rules)
		for _, call := range []struct {
			tool string
			args any
		}{
			{"glob", globParams{Pattern: "**"}},
			{"list", listParams{}},
			{"grep", grepParams{Pattern: "MARK"}},
		} {
			res, err := callTool(t, reg, call.tool, call.args)
			if err != nil {
				t.Fatalf("%s, %s: %v", mode.name, call.tool, err)
			}
			meta, _ := json.Marshal(res.Metadata)
			for _, text := range []string{res.Output, res.Title, string(meta)} {
				if strings.Contains(text, "secret-") {
					t.Errorf("%s, %s: the output names where a link leads:\n%s", mode.name, call.tool, text)
				}
			}
			for _, want := range []string{"Skipped 2 symbolic links", "\n  docs-link (" + mode.says + ")", "\n  sub/file (" + mode.says + ")"} {
				if !strings.Contains(res.Output, want) {
					t.Errorf("%s, %s: the footer does not say %q:\n%s", mode.name, call.tool, want, res.Output)
				}
			}
		}
	}
}
