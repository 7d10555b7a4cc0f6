//go:build unix

package fspath

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestLinksFindEveryNameOfAHardLinkedFileInsideTheTree(t *testing.T) {
	t.Parallel()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(base, "project")
	for rel, content := range map[string]string{
		"project/.env":              "SECRET=1",
		"project/plain.md":          "plain",
		"project/shared/a.md":       "shared",
		"project/.hidden/deep/k.md": "hidden",
		"outside/key":               "outside",
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
		"project/shared/b.md":    "project/shared/a.md",
		"project/notes.md":       "project/.hidden/deep/k.md",
		"project/inside-key":     "outside/key",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(base, link)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Link(filepath.Join(base, target), filepath.Join(base, link)); err != nil {
			t.Skipf("no hard links here: %v", err)
		}
	}
	// A symbolic link is no name of the file (Real judges it), nor is a
	// name reached through a link to a directory outside.
	if err := os.Symlink(".env", filepath.Join(root, "sym-env")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(base, "outside"), filepath.Join(root, "outside-dir")); err != nil {
		t.Fatal(err)
	}
	notHidden := func(rel string) bool { return !strings.HasPrefix(rel, ".") && !strings.Contains(rel, "/.") }
	tests := []struct {
		name      string
		file      string
		wantFound []string
		complete  bool
		refused   string // a part of Check's error; "" when served
	}{
		{"a file of one name has nothing to search", "plain.md", nil, true, ""},
		{"a hard link to a hidden file is refused by its other name", "docs/readme.md", []string{".env", "docs/readme.md"}, true, "is also .env"},
		{"a hard link into a hidden directory is refused", "notes.md", []string{".hidden/deep/k.md", "notes.md"}, true, "is also .hidden/deep/k.md"},
		{"a file with a name outside the tree is refused as not fully known", "inside-key", []string{"inside-key"}, false, "1 of them were not found (they lie outside the project)"},
		{"two allowed names of one file are served", "shared/b.md", []string{"shared/a.md", "shared/b.md"}, true, ""},
	}
	links := NewLinks(root)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			info, err := os.Stat(filepath.Join(root, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			n := links.Names(info)
			if !slices.Equal(n.Found, tt.wantFound) || n.Complete() != tt.complete {
				t.Errorf("Names = %+v (complete %v), want %q (complete %v)", n, n.Complete(), tt.wantFound, tt.complete)
			}
			err = n.Check(tt.file, notHidden)
			if tt.refused == "" && err != nil {
				t.Errorf("refused: %v", err)
			}
			if tt.refused != "" && (!errors.Is(err, ErrHardLinked) || !strings.Contains(err.Error(), tt.refused)) {
				t.Errorf("Check = %v, want a refusal saying %q", err, tt.refused)
			}
		})
	}
}

func TestLinksStoppedShortRefuseWhatTheyDidNotFind(t *testing.T) {
	t.Parallel()
	n := Names{Links: 2, Found: []string{"a"}, CutShort: true}
	err := n.Check("a", func(string) bool { return true })
	if !errors.Is(err, ErrHardLinked) || !strings.Contains(err.Error(), "past the") || !strings.Contains(err.Error(), "cp a a.copy") {
		t.Errorf("Check = %v, want a refusal saying the search stopped, with the remedy", err)
	}
}

func TestLinksStopAtTheirLimitAndSaySo(t *testing.T) {
	t.Parallel()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a", "b", "c", "d"} {
		if err := os.WriteFile(filepath.Join(root, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Link(filepath.Join(root, "a"), filepath.Join(root, "z")); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	links := NewLinks(root)
	links.max = 3 // ".", a, b: z is past the limit
	info, err := os.Stat(filepath.Join(root, "a"))
	if err != nil {
		t.Fatal(err)
	}
	n := links.Names(info)
	if n.Complete() || !n.CutShort {
		t.Errorf("Names = %+v, want the search cut short before z", n)
	}
	if err := n.Check("a", func(string) bool { return true }); !errors.Is(err, ErrHardLinked) {
		t.Errorf("Check = %v, want a refusal", err)
	}
}
