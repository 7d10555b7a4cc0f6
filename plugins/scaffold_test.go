package plugins

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestEmbeddedSDKsMatchSdkGuest(t *testing.T) {
	t.Parallel()
	err := fs.WalkDir(templates, "templates/sdk", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel := strings.TrimSuffix(strings.TrimPrefix(p, "templates/sdk/"), ".txt")
		want, err := os.ReadFile(filepath.Join("..", "sdk-guest", rel))
		if err != nil {
			t.Errorf("%s: %v", rel, err)
			return nil
		}
		got, _ := templates.ReadFile(p)
		if string(got) != string(want) {
			t.Errorf("templates/sdk/%s differs from sdk-guest/%s; run go generate ./plugins", rel, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestNewRefusesBadNamesLanguagesAndExistingTools(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, err := New(dir, "dup", LangGo); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, tool string
		lang       Lang
		want       string
	}{
		{"a name with a space is not a tool id", "my tool", LangGo, "use letters"},
		{"an unknown language is named", "x", "rust", `language "rust"`},
		{"an existing source is never overwritten", "dup", LangGo, "already exists"},
	}
	for _, tt := range tests {
		if _, err := New(dir, tt.tool, tt.lang); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want %q", tt.name, err, tt.want)
		}
	}
}

func TestNewThenBuildMakesLoadableTools(t *testing.T) {
	t.Parallel()
	langs := []Lang{LangGo}
	if _, err := exec.LookPath("clang-14"); err == nil || os.Getenv("CI") == "true" {
		langs = append(langs, LangC)
	} else {
		t.Log("clang-14 not found; scaffolding only the Go tool")
	}
	dir := t.TempDir()
	for _, l := range langs {
		if _, err := New(dir, "greet-"+string(l), l); err != nil {
			t.Fatal(err)
		}
	}
	results, err := Build(context.Background(), dir)
	if err != nil {
		for _, r := range results {
			t.Log(r.Name, r.Err)
		}
		t.Fatal(err)
	}
	if len(results) != len(langs) {
		t.Fatalf("built %d tools, want %d", len(results), len(langs))
	}
	tools := discover(t, newHost(t, nil), dir)
	for _, l := range langs {
		id := "greet-" + string(l)
		res, err := call(t, tools[id], `{"name": "Ada"}`, nil)
		if err != nil || res.Output != "Hello, Ada!" {
			t.Errorf("%s: %+v, %v", id, res, err)
		}
	}
}
