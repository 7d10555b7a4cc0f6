package permission

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

// literalNames reads the hostile names corpus.
func literalNames(t *testing.T) []string {
	t.Helper()
	f, err := os.Open("testdata/literal_names.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var names []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		names = append(names, line)
	}
	if len(names) < 10 {
		t.Fatalf("corpus has %d names; it was not read", len(names))
	}
	return names
}

// broader are strings a pattern for name must not match: longer names,
// siblings, and the name under the home directory.
func broader(name string) []string {
	home, _ := os.UserHomeDir()
	out := []string{name + "x", "x" + name, name + "/x", "other", ""}
	if home != "" {
		out = append(out, home, home+"/.ssh/id_ed25519", home+"/"+strings.TrimLeft(name, "~$/"))
	}
	return out
}

func TestLiteralMatchesTheNameAndNothingBroader(t *testing.T) {
	t.Parallel()
	for _, name := range literalNames(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p := Literal(name)
			if !Match(p, name) {
				t.Fatalf("Literal(%q) = %q does not match the name itself", name, p)
			}
			for _, s := range broader(name) {
				if s != name && Match(p, s) {
					t.Errorf("Literal(%q) = %q also matches %q", name, p, s)
				}
			}
		})
	}
}

func TestUnderMatchesTheDirectoryContentsAndNotItsSiblings(t *testing.T) {
	t.Parallel()
	for _, name := range literalNames(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p := Under(name)
			if inside := strings.TrimSuffix(name, "/") + "/deep/file.go"; !Match(p, inside) {
				t.Fatalf("Under(%q) = %q does not match %q", name, p, inside)
			}
			for _, s := range []string{name + "x", name + "x/file.go", "x" + name + "/file.go", "other/file.go"} {
				if Match(p, s) {
					t.Errorf("Under(%q) = %q also matches %q", name, p, s)
				}
			}
		})
	}
}

func TestLiteralLeavesPlainNamesAsTheyAre(t *testing.T) {
	t.Parallel()
	for _, name := range []string{".env", "src/main.go", "/etc/passwd", "dir with spaces/f.txt"} {
		if got := Literal(name); got != name {
			t.Errorf("Literal(%q) = %q, want it unchanged", name, got)
		}
	}
}

func FuzzLiteral(f *testing.F) {
	for _, s := range []string{".env", "a*b", "~/x", "$HOME", "ls *", "é?"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p := Literal(s)
		if !Match(p, s) {
			t.Fatalf("Literal(%q) = %q does not match the name itself", s, p)
		}
		if strings.Contains(p, "*") {
			t.Fatalf("Literal(%q) = %q has a star", s, p)
		}
		if Match(p, s+"x") {
			t.Fatalf("Literal(%q) = %q matches a longer name", s, p)
		}
	})
}
