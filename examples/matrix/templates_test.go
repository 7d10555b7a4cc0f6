package matrix

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"text/template"

	"github.com/toolhost/toolhost/plugins"
)

// The templates `toolhost tool new --lang <lang>` starts from live in
// sdk-guest/<lang>/template, as text/template files ({{.Name}} is the
// tool's name) laid out as the tool's folder in .toolhost/tools-src, next
// to the SDK vendored at .toolhost/tools-src/.sdk/<lang>. This test lays
// them out exactly so, builds each with its toolchain, and calls it.

// templateName has a dash on purpose: a crate or module name cannot.
const templateName = "my-tool"

// scaffold renders sdk-guest/<lang>/template into a tools-src folder,
// vendors the SDK beside it, and returns the tool's folder.
func scaffold(lang string) (string, error) {
	src, err := os.MkdirTemp("", "toolhost-template-")
	if err != nil {
		return "", err
	}
	sdk := abs("sdk-guest/" + lang)
	if err := copyTree(sdk, filepath.Join(src, ".sdk", lang), "template", "node_modules"); err != nil {
		return "", err
	}
	dir := filepath.Join(src, templateName)
	root := filepath.Join(sdk, "template")
	err = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		t, err := template.ParseFiles(p)
		if err != nil {
			return err
		}
		out := filepath.Join(dir, strings.TrimSuffix(rel, ".tmpl"))
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return err
		}
		f, err := os.Create(out)
		if err != nil {
			return err
		}
		defer f.Close()
		return t.Execute(f, struct{ Name string }{templateName})
	})
	return dir, err
}

// copyTree copies the regular files under from to to, skipping folders
// named in skip.
func copyTree(from, to string, skip ...string) error {
	return filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if d.IsDir() {
			for _, s := range skip {
				if d.Name() == s {
					return filepath.SkipDir
				}
			}
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), data, 0o644)
	})
}

// templateLang builds lang's template as `toolhost tool build` would,
// with build run in the scaffolded tool folder.
func templateLang(base language, lang string, build func(ctx context.Context, dir, out string) error) language {
	return language{
		name:      "template-" + base.name,
		sources:   []string{"sdk-guest/" + lang, "examples/matrix/templates_test.go", base.sources[len(base.sources)-1]},
		install:   base.install,
		toolchain: base.toolchain,
		build: func(ctx context.Context, out string) error {
			dir, err := scaffold(lang)
			if err != nil {
				return err
			}
			defer os.RemoveAll(filepath.Dir(dir))
			return build(ctx, dir, out)
		},
	}
}

var templateLangs = []language{
	templateLang(rustLang, "rust", func(ctx context.Context, dir, out string) error {
		return rustBuild(ctx, filepath.Join(dir, "..", ".sdk", "rust", "src", "lib.rs"), strings.ReplaceAll(templateName, "-", "_"),
			filepath.Join(dir, "src", "lib.rs"), out)
	}),
	templateLang(asLang, "assemblyscript", func(ctx context.Context, dir, out string) error {
		return asBuild(ctx, dir, "index.ts", "../.sdk/assemblyscript/index/abort", out)
	}),
	templateLang(dLang, "d", func(ctx context.Context, dir, out string) error {
		return dBuild(ctx, dir, filepath.Join(dir, "..", ".sdk", "d"), []string{"tool.d"}, out)
	}),
}

func TestTemplatesBuildIntoWorkingTools(t *testing.T) {
	t.Parallel()
	for _, l := range templateLangs {
		t.Run(l.name, func(t *testing.T) {
			t.Parallel()
			s := loadAs(t, module(t, l), templateName+".wasm", "", nil)
			if len(s.tools) != 1 || s.tools[0] != templateName {
				t.Fatalf("tools = %v; want the one tool %s", s.tools, templateName)
			}
			res, err := s.call(t, "", templateName, `{"name": "Zoë"}`)
			if err != nil || res.Output != "Hello, Zoë!" {
				t.Errorf("call = %q, %v; want Hello, Zoë!", res.Output, err)
			}
			_, err = s.call(t, "", templateName, `{"name": ""}`)
			var ge *plugins.GuestError
			if !errors.As(err, &ge) || !strings.Contains(err.Error(), "name is empty") {
				t.Errorf("empty name: err = %v, want the template's guest error", err)
			}
		})
	}
}
