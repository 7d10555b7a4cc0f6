package builtins

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/toolhost/toolhost/runtime/config"
	"github.com/toolhost/toolhost/runtime/permission"
)

// instructionProject lays out a project with instruction files at several
// depths:
//
//	AGENTS.md            root: the host gives it, read never repeats it
//	a/AGENTS.md
//	a/b/CLAUDE.md        the fallback name
//	a/b/c/file.go
//	c/AGENTS.md, c/CLAUDE.md   both: AGENTS.md wins
//	c/file.go
//	plain/file.txt       no instructions on the way
func instructionProject(t *testing.T, e *ftEnv) {
	t.Helper()
	for rel, content := range map[string]string{
		"AGENTS.md":      "root rules\n",
		"a/AGENTS.md":    "a rules\n",
		"a/x.go":         "package a\n",
		"a/b/CLAUDE.md":  "b rules\n",
		"a/b/c/file.go":  "package c\n",
		"c/AGENTS.md":    "c agents\n",
		"c/CLAUDE.md":    "c claude\n",
		"c/file.go":      "package c\n",
		"plain/file.txt": "plain\n",
		"root.go":        "package root\n",
	} {
		e.write(t, rel, content)
	}
}

func TestReadLoadsInstructionFiles(t *testing.T) {
	t.Parallel()
	type step struct {
		read    string   // relative to the project (absolute when it starts with /)
		session string   // "" keeps the env's
		loaded  []string // relative to the project
		output  []string // substrings of the output
	}
	tests := []struct {
		name  string
		setup func(t *testing.T, e *ftEnv)
		steps []step
	}{
		{name: "a read brings the files between it and the root, nearest first, not the root's",
			steps: []step{{read: "a/b/c/file.go", loaded: []string{"a/b/CLAUDE.md", "a/AGENTS.md"},
				output: []string{"(End of file - total 1 lines)\n</content>\n\n<system-reminder>\nInstructions from: {dir}/a/b/CLAUDE.md\nb rules\n\nInstructions from: {dir}/a/AGENTS.md\na rules\n</system-reminder>"}}}},
		{name: "a later read in the same session does not repeat them",
			steps: []step{{read: "a/b/c/file.go", loaded: []string{"a/b/CLAUDE.md", "a/AGENTS.md"}}, {read: "a/x.go"}, {read: "a/b/c/file.go"}}},
		{name: "a call without a session is given them every time",
			setup: func(t *testing.T, e *ftEnv) { e.tc.SessionID = "" },
			steps: []step{{read: "a/x.go", loaded: []string{"a/AGENTS.md"}}, {read: "a/x.go", loaded: []string{"a/AGENTS.md"}}}},
		{name: "another session is given them again",
			steps: []step{{read: "a/x.go", loaded: []string{"a/AGENTS.md"}}, {read: "a/x.go", session: "other", loaded: []string{"a/AGENTS.md"}}}},
		{name: "AGENTS.md is preferred to CLAUDE.md in one directory",
			steps: []step{{read: "c/file.go", loaded: []string{"c/AGENTS.md"}, output: []string{"c agents"}}}},
		{name: "a file at the root brings nothing", steps: []step{{read: "root.go"}}},
		{name: "a file with no instructions on its way brings nothing", steps: []step{{read: "plain/file.txt"}}},
		{name: "reading an instruction file whole does not repeat it and counts as given",
			steps: []step{{read: "a/AGENTS.md"}, {read: "a/b/c/file.go", loaded: []string{"a/b/CLAUDE.md"}}}},
		{name: "reading the fallback file while AGENTS.md exists does not count it as given",
			steps: []step{{read: "c/CLAUDE.md", loaded: []string{"c/AGENTS.md"}}, {read: "c/file.go"}}},
		{name: "the working directory's own file counts as given",
			setup: func(t *testing.T, e *ftEnv) { e.tc.Directory = filepath.Join(e.dir, "a") },
			steps: []step{{read: "b/c/file.go", loaded: []string{"a/b/CLAUDE.md"}}}},
		{name: "an empty instructions setting turns it off",
			setup: func(t *testing.T, e *ftEnv) { e.tc.Config = &config.Config{Instructions: []string{}} },
			steps: []step{{read: "a/b/c/file.go"}}},
		{name: "the instructions setting names the files to look for",
			setup: func(t *testing.T, e *ftEnv) {
				e.tc.Config = &config.Config{Instructions: []string{"CLAUDE.md"}}
			},
			steps: []step{{read: "a/b/c/file.go", loaded: []string{"a/b/CLAUDE.md"}}, {read: "c/file.go", loaded: []string{"c/CLAUDE.md"}}}},
		{name: "an image brings them too, after its message",
			setup: func(t *testing.T, e *ftEnv) {
				e.write(t, "a/pic.png", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01")
			},
			steps: []step{{read: "a/pic.png", loaded: []string{"a/AGENTS.md"}, output: []string{"Image read successfully\n\n<system-reminder>\nInstructions from: {dir}/a/AGENTS.md"}}}},
		{name: "a directory listing brings nothing", steps: []step{{read: "a/b"}, {read: "a/b/c/file.go", loaded: []string{"a/b/CLAUDE.md", "a/AGENTS.md"}}}},
		{name: "a read the rules deny for the instruction file skips it",
			setup: func(t *testing.T, e *ftEnv) {
				e.tc.Rules = permission.Ruleset{{Permission: "read", Pattern: "a/AGENTS.md", Action: permission.Deny}}
			},
			steps: []step{{read: "a/b/c/file.go", loaded: []string{"a/b/CLAUDE.md"}}}},
		{name: "an instruction file the rules would ask about is skipped, not asked",
			setup: func(t *testing.T, e *ftEnv) {
				e.tc.Rules = permission.Ruleset{{Permission: "read", Pattern: "*CLAUDE.md", Action: permission.Ask}}
			},
			steps: []step{{read: "a/b/c/file.go", loaded: []string{"a/AGENTS.md"}}}},
		{name: "a symlink to a file outside the project is skipped",
			setup: func(t *testing.T, e *ftEnv) {
				secret := filepath.Join(t.TempDir(), "secret")
				if err := os.WriteFile(secret, []byte("TOKEN=hunter2\n"), 0o600); err != nil {
					t.Fatal(err)
				}
				e.write(t, "l/file.go", "package l\n")
				if err := os.Symlink(secret, filepath.Join(e.dir, "l", "AGENTS.md")); err != nil {
					t.Skip("symlinks unsupported:", err)
				}
			},
			steps: []step{{read: "l/file.go"}}},
		{name: "a symlink inside the project is followed",
			setup: func(t *testing.T, e *ftEnv) {
				e.write(t, "l/file.go", "package l\n")
				if err := os.Symlink(filepath.Join(e.dir, "a", "AGENTS.md"), filepath.Join(e.dir, "l", "AGENTS.md")); err != nil {
					t.Skip("symlinks unsupported:", err)
				}
			},
			steps: []step{{read: "l/file.go", loaded: []string{"l/AGENTS.md"}, output: []string{"a rules"}}}},
		{name: "a directory named AGENTS.md is no instruction file",
			setup: func(t *testing.T, e *ftEnv) {
				e.write(t, "d/AGENTS.md/x", "x\n")
				e.write(t, "d/file.go", "package d\n")
			},
			steps: []step{{read: "d/file.go"}}},
		{name: "binary and empty instruction files are skipped",
			setup: func(t *testing.T, e *ftEnv) {
				e.write(t, "bin/AGENTS.md", "\x00\x01\x02rules")
				e.write(t, "bin/file.go", "package bin\n")
				e.write(t, "bin/empty/AGENTS.md", " \n")
				e.write(t, "bin/empty/file.go", "package empty\n")
			},
			steps: []step{{read: "bin/file.go"}, {read: "bin/empty/file.go"}}},
		{name: "a huge instruction file is cut with a note",
			setup: func(t *testing.T, e *ftEnv) {
				e.write(t, "h/AGENTS.md", strings.Repeat("rule\n", 20000))
				e.write(t, "h/file.go", "package h\n")
			},
			steps: []step{{read: "h/file.go", loaded: []string{"h/AGENTS.md"}, output: []string{"(Cut at 32 KB; read {dir}/h/AGENTS.md for the rest.)\n</system-reminder>"}}}},
		{name: "a file outside the project brings nothing",
			setup: func(t *testing.T, e *ftEnv) {
				out := t.TempDir()
				for _, f := range []string{"AGENTS.md", "sub/f.txt"} {
					if err := os.MkdirAll(filepath.Dir(filepath.Join(out, f)), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(filepath.Join(out, f), []byte("outside\n"), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				e.write(t, "outside", out)
			},
			steps: []step{{read: "{outside}/sub/f.txt"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newFTEnv(t)
			instructionProject(t, e)
			if tt.setup != nil {
				tt.setup(t, e)
			}
			outside, _ := os.ReadFile(filepath.Join(e.dir, "outside"))
			for i, s := range tt.steps {
				if s.session != "" {
					e.tc.SessionID = s.session
				}
				path := strings.ReplaceAll(s.read, "{outside}", string(outside))
				res, err := e.call(t, Read(), readParams{FilePath: path})
				if err != nil {
					t.Fatalf("step %d: read %s: %v", i, s.read, err)
				}
				var want []string
				for _, l := range s.loaded {
					want = append(want, filepath.Join(e.dir, l))
				}
				got, _ := res.Metadata["loaded"].([]string)
				if !slices.Equal(got, want) {
					t.Errorf("step %d: read %s: loaded %q, want %q", i, s.read, got, want)
				}
				if len(want) == 0 && strings.Contains(res.Output, "<system-reminder>") {
					t.Errorf("step %d: read %s: a reminder without loaded files:\n%s", i, s.read, res.Output)
				}
				for _, w := range s.output {
					w = strings.ReplaceAll(w, "{dir}", e.dir)
					if !strings.Contains(res.Output, w) {
						t.Errorf("step %d: read %s: output lacks %q:\n%s", i, s.read, w, res.Output)
					}
				}
			}
		})
	}
}

// TestParallelReadsBringAnInstructionFileOnce: claiming is atomic, so
// reads racing under one directory do not both bring its file.
func TestParallelReadsBringAnInstructionFileOnce(t *testing.T) {
	t.Parallel()
	e := newFTEnv(t)
	instructionProject(t, e)
	const n = 8
	for i := range n {
		e.write(t, filepath.Join("a", "p", string(rune('a'+i))+".go"), "package p\n")
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	count := 0
	for i := range n {
		wg.Go(func() {
			res, err := e.call(t, Read(), readParams{FilePath: filepath.Join("a", "p", string(rune('a'+i))+".go")})
			if err != nil {
				t.Error(err)
				return
			}
			loaded, _ := res.Metadata["loaded"].([]string)
			mu.Lock()
			count += len(loaded)
			mu.Unlock()
		})
	}
	wg.Wait()
	if count != 1 {
		t.Fatalf("a/AGENTS.md was brought %d times, want once", count)
	}
}
