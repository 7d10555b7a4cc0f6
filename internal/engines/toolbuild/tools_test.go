package toolbuild

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCompilerPathsAreMadeRelativeToWhereTheUserIs(t *testing.T) {
	t.Parallel()
	project := t.TempDir()
	dir := filepath.Join(project, ".toolhost", "tools-src", "hello")
	if err := os.MkdirAll(filepath.Join(dir, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"main.go", "src/lib.rs", "hello.c"} {
		if err := os.WriteFile(filepath.Join(dir, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name, from, msg, want string
	}{
		{"go's ./file at the start of a line", project, "# hello\n./main.go:3:1: undefined: x", "# hello\n.toolhost/tools-src/hello/main.go:3:1: undefined: x"},
		{"clang's bare file name", project, "hello.c:2:5: error: expected ';'", ".toolhost/tools-src/hello/hello.c:2:5: error: expected ';'"},
		{"an absolute path anywhere in a line", project, "error: " + dir + "/src/lib.rs:1:1 bad", "error: .toolhost/tools-src/hello/src/lib.rs:1:1 bad"},
		{"from a subdirectory the path climbs", filepath.Join(project, "sub"), "./main.go:3:1: x", "../.toolhost/tools-src/hello/main.go:3:1: x"},
		{"an indented file keeps its indent", project, "  main.go:1:1: x", "  .toolhost/tools-src/hello/main.go:1:1: x"},
		{"a word that is no file of the folder is left alone", project, "note: see docs\nerror: main.rs:1: x", "note: see docs\nerror: main.rs:1: x"},
		{"a file outside the folder is left alone", project, "../../etc/passwd:1: x\n/etc/passwd:1: x", "../../etc/passwd:1: x\n/etc/passwd:1: x"},
		{"a sibling folder sharing the prefix is left alone", project, dir + "2/main.go:1: x", dir + "2/main.go:1: x"},
		{"text without a colon is left alone", project, "main.go", "main.go"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := relativize(tc.msg, dir, tc.from); got != tc.want {
				t.Fatalf("relativize =\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}

func TestStaleListsOnlyMarkersBesideAModule(t *testing.T) {
	t.Parallel()
	cfg := t.TempDir()
	tool := filepath.Join(cfg, "tool")
	if err := os.MkdirAll(tool, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(tool, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.wasm", "\x00asm")
	write("a.wasm"+StaleSuffix, "a.go:1: broken\n")
	write("gone.wasm"+StaleSuffix, "no module beside me\n")
	got := Stale(cfg)
	if len(got) != 1 || got["a"] != "a.go:1: broken" {
		t.Fatalf("Stale = %q, want only a with its error", got)
	}
}

func TestIgnoreFilesAreWrittenOnceAndTheUsersAreKept(t *testing.T) {
	t.Parallel()
	cfg := t.TempDir()
	mine := filepath.Join(cfg, "tool", ".gitignore")
	if err := os.MkdirAll(filepath.Dir(mine), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(mine, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := ensureIgnored(cfg); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(mine); string(b) != "mine\n" {
		t.Errorf("the user's .gitignore was changed: %q", b)
	}
	b, err := os.ReadFile(filepath.Join(cfg, SourcesDir, ".gitignore"))
	if err != nil || !contains(string(b), "/.sdk/", "/.build/") {
		t.Errorf("tools-src/.gitignore = %q, %v; want the SDK and build state ignored", b, err)
	}
}

func contains(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

func TestBuildingAToolWithNoSourceNamesTheOnesThereAre(t *testing.T) {
	t.Parallel()
	cfg := t.TempDir()
	if _, err := New(cfg, "hello", LangGo); err != nil {
		t.Fatal(err)
	}
	_, err := BuildTools(t.Context(), cfg, Options{Names: []string{"helo"}})
	var ue *UnknownToolError
	if !errors.As(err, &ue) || ue.Name != "helo" || ue.Have != "there are: hello" {
		t.Fatalf("err = %v, want an UnknownToolError naming hello", err)
	}
}
