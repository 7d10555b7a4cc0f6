//go:build unix

package builtins

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/permission"
)

// hardLinkProject is a project with a .env, a hard link docs/readme.md to
// it, a hard link inside-key to a file outside the project, a hard link
// docs/copy.md to docs/guide.md (both names allowed), and a sub-directory
// whose AGENTS.md is a hard link to .env.
func hardLinkProject(t *testing.T) (project string) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	project = filepath.Join(base, "project")
	for rel, content := range map[string]string{
		"project/.env":          "ENV SECRET",
		"project/docs/guide.md": "# Guide",
		"project/sub/file.txt":  "plain",
		"project/.git/HEAD":     "ref: refs/heads/main",
		"outside/key":           "OUTSIDE SECRET",
	} {
		p := filepath.Join(base, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		"project/docs/readme.md": "project/.env",
		"project/inside-key":     "outside/key",
		"project/docs/copy.md":   "project/docs/guide.md",
		"project/sub/AGENTS.md":  "project/.env",
	} {
		if err := os.Link(filepath.Join(base, target), filepath.Join(base, link)); err != nil {
			t.Skipf("no hard links here: %v", err)
		}
	}
	return project
}

// A hard link gives a file a second name with no link to resolve. The read
// tool asks for every name of the file it reads — the one given, and each
// other one found in the project — so `docs/readme.md` that is also `.env`
// is decided by "*.env" as well; names it cannot find (outside the
// project) are one pattern that any rule which could deny or ask one
// decides. An instruction file brought along is judged the same way.
func TestReadAsksForEveryNameOfAHardLinkedFile(t *testing.T) {
	t.Parallel()
	project := hardLinkProject(t)
	read := func(pattern string, a permission.Action) permission.Rule {
		return permission.Rule{Permission: permissionRead, Pattern: pattern, Action: a}
	}
	allowAll := permission.Rule{Permission: "*", Pattern: "*", Action: permission.Allow}
	tests := []struct {
		name    string
		rules   permission.Ruleset
		file    string
		refused string // in the error; "" when read
		want    string // in the output when read
	}{
		{"a hard link to a denied file is denied by the file's other name", permission.Ruleset{allowAll, read("*.env", permission.Deny)}, "docs/readme.md", `denied for ".env"`, ""},
		{"a hard link to a file the rules ask about is asked about", permission.Ruleset{allowAll, read("*.env", permission.Ask)}, "docs/readme.md", `".env"`, ""},
		{"a hard link with a name outside the project is denied by a rule that could match it", permission.Ruleset{allowAll, read("*.env", permission.Deny)}, "inside-key", "hard link outside the project", ""},
		{"a hard link with a name outside the project is read when every name is allowed", permission.Ruleset{allowAll}, "inside-key", "", "OUTSIDE SECRET"},
		{"two allowed names of one file are read", permission.Ruleset{allowAll, read("*.env", permission.Deny)}, "docs/copy.md", "", "# Guide"},
		{"an instruction file hard-linked to a denied file is not brought along", permission.Ruleset{allowAll, read("*.env", permission.Deny)}, "sub/file.txt", "", "plain"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			reg, err := runtime.NewRegistry(runtime.Options{
				Directory: project, Worktree: project, DataDir: t.TempDir(),
				Agents: map[string]*runtime.Agent{"build": {Name: "build", Rules: tt.rules}},
			})
			if err != nil {
				t.Fatal(err)
			}
			reg.Add(runtime.SourceBuiltin, Read())
			res, err := callTool(t, reg, "read", readParams{FilePath: filepath.Join(project, tt.file)})
			if strings.Contains(res.Output, "SECRET") && tt.want != "OUTSIDE SECRET" {
				t.Errorf("a file kept back was read through a hard link:\n%s", res.Output)
			}
			if tt.refused != "" {
				if err == nil || !strings.Contains(err.Error(), tt.refused) {
					t.Errorf("err = %v, want a refusal naming %s", err, tt.refused)
				}
				return
			}
			if err != nil || !strings.Contains(res.Output, tt.want) {
				t.Errorf("read: %v\n%s", err, res.Output)
			}
		})
	}
}

// What a read opens must be what its names were judged by: a file put in
// place of the one checked is told apart by its device and inode.
func TestOpenedIsTellsTheFileJudgedFromAnother(t *testing.T) {
	t.Parallel()
	project := hardLinkProject(t)
	tc := runtime.NewContext(runtime.Context{Directory: project, Worktree: project}, nil, nil)
	guide, err := os.Stat(filepath.Join(project, "docs", "guide.md"))
	if err != nil {
		t.Fatal(err)
	}
	env, err := os.Stat(filepath.Join(project, ".env"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"docs/copy.md", "docs/guide.md"} {
		f, err := openChecked(tc, filepath.Join(project, name))
		if err != nil {
			t.Fatal(err)
		}
		if !openedIs(f, guide) || openedIs(f, env) {
			t.Errorf("%s: openedIs does not tell the guide from .env", name)
		}
		f.Close()
	}
}

// grep shows file contents too: its matches in a file the read rules keep
// back (by any of its names) are left out, and out of the count, which
// would otherwise tell a denied file's content one search at a time.
func TestGrepLeavesOutWhatTheReadRulesKeepBack(t *testing.T) {
	t.Parallel()
	project := hardLinkProject(t)
	allowAll := permission.Rule{Permission: "*", Pattern: "*", Action: permission.Allow}
	tests := []struct {
		name     string
		rules    permission.Ruleset
		want     string // the match count line
		keptBack int
	}{
		{"every file is searched when the rules allow every path", permission.Ruleset{allowAll}, "Found 4 matches", 0},
		{"a denied file and every hard link to it are left out, and one with names outside", permission.Ruleset{allowAll, {Permission: permissionRead, Pattern: "*.env", Action: permission.Deny}}, "No files found", 4},
		{"a file the rules ask about is left out as well", permission.Ruleset{allowAll, {Permission: permissionRead, Pattern: "*.env", Action: permission.Ask}}, "No files found", 4},
		{"a rule about other files leaves the rest", permission.Ruleset{allowAll, {Permission: permissionRead, Pattern: "inside-key", Action: permission.Deny}}, "Found 3 matches", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			reg, err := runtime.NewRegistry(runtime.Options{
				Directory: project, Worktree: project, DataDir: t.TempDir(),
				Agents: map[string]*runtime.Agent{"build": {Name: "build", Rules: tt.rules}},
			})
			if err != nil {
				t.Fatal(err)
			}
			reg.Add(runtime.SourceBuiltin, Grep())
			res, err := callTool(t, reg, "grep", grepParams{Pattern: "SECRET"})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(res.Output, tt.want) {
				t.Errorf("output starts %q, want %q:\n%s", strings.SplitN(res.Output, "\n", 2)[0], tt.want, res.Output)
			}
			if got, _ := res.Metadata["keptBack"].(int); got != tt.keptBack {
				t.Errorf("keptBack = %d, want %d:\n%s", got, tt.keptBack, res.Output)
			}
		})
	}
}

// A search of one file named by a link is judged by where the link leads.
func TestGrepOfOneLinkedFileIsJudgedByItsTarget(t *testing.T) {
	t.Parallel()
	project := hardLinkProject(t)
	if err := os.Symlink(".env", filepath.Join(project, "env-link.txt")); err != nil {
		t.Fatal(err)
	}
	reg, err := runtime.NewRegistry(runtime.Options{
		Directory: project, Worktree: project, DataDir: t.TempDir(),
		Agents: map[string]*runtime.Agent{"build": {Name: "build", Rules: permission.Ruleset{
			{Permission: "*", Pattern: "*", Action: permission.Allow},
			{Permission: permissionRead, Pattern: "*.env", Action: permission.Deny},
		}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	reg.Add(runtime.SourceBuiltin, Grep())
	res, err := callTool(t, reg, "grep", grepParams{Pattern: "SECRET", Path: filepath.Join(project, "env-link.txt")})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(res.Output, "ENV SECRET") {
		t.Errorf("grep of a link to a denied file showed it:\n%s", res.Output)
	}
}

// edit, write and apply_patch show the content they replace, in the
// question and in the result: a file the session has not read here (a
// front end that skips the read check; apply_patch, which needs no read)
// is judged as a read of it would be, by every name, so they cannot read
// `.env` — itself or through a hard link — for the model.
func TestWriteToolsDoNotShowWhatTheReadRulesKeepBack(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, tool string
		args       func(project string) any
	}{
		{"edit of a hard link to .env", "edit", func(p string) any {
			return editParams{FilePath: filepath.Join(p, "docs/readme.md"), OldString: "ENV", NewString: "X"}
		}},
		{"edit of .env itself", "edit", func(p string) any {
			return editParams{FilePath: filepath.Join(p, ".env"), OldString: "ENV", NewString: "X"}
		}},
		{"write over a hard link to .env", "write", func(p string) any {
			return writeParams{FilePath: filepath.Join(p, "docs/readme.md"), Content: "new"}
		}},
		{"multiedit of a hard link to .env", "multiedit", func(p string) any {
			return multiEditParams{FilePath: filepath.Join(p, "sub/AGENTS.md"), Edits: []multiEditItem{{OldString: "ENV", NewString: "X"}}}
		}},
		{"apply_patch of a hard link to .env", "apply_patch", func(string) any {
			return applyPatchParams{PatchText: "*** Begin Patch\n*** Update File: docs/readme.md\n@@\n-ENV SECRET\n+X\n*** End Patch"}
		}},
		{"apply_patch of a file with a name outside the project", "apply_patch", func(string) any {
			return applyPatchParams{PatchText: "*** Begin Patch\n*** Update File: inside-key\n@@\n-OUTSIDE SECRET\n+X\n*** End Patch"}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			project := hardLinkProject(t)
			reg, err := runtime.NewRegistry(runtime.Options{
				Directory: project, Worktree: project, DataDir: t.TempDir(),
				Agents: map[string]*runtime.Agent{"build": {Name: "build", Rules: permission.Ruleset{
					{Permission: "*", Pattern: "*", Action: permission.Allow},
					{Permission: permissionRead, Pattern: "*.env", Action: permission.Deny},
				}}},
			})
			if err != nil {
				t.Fatal(err)
			}
			reg.Add(runtime.SourceBuiltin, Edit(), Write(), MultiEdit(), ApplyPatch())
			raw, err := json.Marshal(tt.args(project))
			if err != nil {
				t.Fatal(err)
			}
			res, err := reg.Call(context.Background(), runtime.Call{Tool: tt.tool, Args: raw, Agent: "build", SessionID: "ses", Front: runtime.Front{SkipReadCheck: true}})
			meta, _ := json.Marshal(res.Metadata)
			if strings.Contains(res.Output+string(meta), "SECRET") {
				t.Errorf("the write tool showed a file the read rules keep back:\n%s\n%s", res.Output, meta)
			}
			var denied *permission.DeniedError
			if !errors.As(err, &denied) || denied.Permission != permissionRead {
				t.Errorf("err = %v, want the read permission denied", err)
			}
			if b, _ := os.ReadFile(filepath.Join(project, ".env")); string(b) != "ENV SECRET" {
				t.Errorf(".env = %q, changed", b)
			}
		})
	}
}

// A file of thousands of hard links is asked about with a bounded number
// of names; the rest are decided as names not found.
func TestHardLinkPatternsAreBounded(t *testing.T) {
	t.Parallel()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	first := filepath.Join(dir, "f0")
	if err := os.WriteFile(first, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for i := 1; i < 3*maxLinkPatterns; i++ {
		if err := os.Link(first, filepath.Join(dir, "f"+strings.Repeat("0", i))); err != nil {
			t.Skipf("no hard links here: %v", err)
		}
	}
	tc := runtime.NewContext(runtime.Context{Directory: dir, Worktree: dir}, nil, nil)
	info, err := os.Stat(first)
	if err != nil {
		t.Fatal(err)
	}
	patterns, unresolved := hardLinkPatterns(tc, first, info, filePatterns(tc, first), nil)
	if len(patterns) > maxLinkPatterns+2 || len(unresolved) != 1 {
		t.Errorf("%d patterns, %d unresolved; want at most %d and one standing for the rest", len(patterns), len(unresolved), maxLinkPatterns+2)
	}
}
