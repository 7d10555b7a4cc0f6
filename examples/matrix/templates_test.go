package matrix

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/engines/toolbuild"
	"github.com/toolhost/toolhost/plugins/wasm"
)

// Each language's template is tested as an author meets it: toolbuild.New
// (`toolhost tool new <name> --lang <lang>`) scaffolds it into a fresh
// config directory, toolbuild.Build (`toolhost tool build`) builds it with
// the language's toolchain, and the module is called through the host.

// templateName has a dash on purpose: a crate or module name cannot.
const templateName = "my-tool"

// templateLang is lang's template, built as `toolhost tool build` builds
// it. Its cache key covers the embedded template and SDK and plugins'
// scaffolding and build code.
func templateLang(lang toolbuild.Lang) language {
	return language{
		name:      "template-" + string(lang),
		sources:   append(append(templateSources(lang), "internal/engines/toolbuild/scaffold.go"), buildCode...),
		toolchain: func(ctx context.Context) (string, error) { return toolchain(ctx, lang) },
		build: func(ctx context.Context, out string) error {
			cfg, err := os.MkdirTemp("", "toolhost-template-")
			if err != nil {
				return err
			}
			defer os.RemoveAll(cfg)
			if _, err := toolbuild.New(cfg, templateName, lang); err != nil {
				return err
			}
			results, err := toolbuild.Build(ctx, cfg)
			if err != nil {
				for _, r := range results {
					err = fmt.Errorf("%w\n%s: %v", err, r.Name, r.Err)
				}
				return err
			}
			if len(results) != 1 || results[0].Lang != lang || results[0].Name != templateName {
				return fmt.Errorf("build results = %+v; want %s built as %s", results, templateName, lang)
			}
			return os.Rename(results[0].Output, out)
		},
	}
}

func TestTemplatesBuildIntoWorkingTools(t *testing.T) {
	t.Parallel()
	for _, lang := range toolbuild.Langs() {
		l := templateLang(lang)
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
			var ge *wasm.GuestError
			if !errors.As(err, &ge) || !strings.Contains(err.Error(), "name is empty") {
				t.Errorf("empty name: err = %v, want the template's guest error", err)
			}
		})
	}
}

// TestEveryCacheKeySourceExists catches a renamed file in a cache key
// even where the language's toolchain is missing and its build skipped.
func TestEveryCacheKeySourceExists(t *testing.T) {
	t.Parallel()
	all := append([]language{}, languages...)
	for _, lang := range toolbuild.Langs() {
		all = append(all, templateLang(lang))
	}
	for _, l := range all {
		for _, s := range l.sources {
			if _, err := os.Stat(filepath.Join(repoRoot, s)); err != nil {
				t.Errorf("%s: cache key source %s: %v", l.name, s, err)
			}
		}
	}
}

// templateSources are where lang's template and SDK live: Go's and C's
// templates in internal/engines/toolbuild (with the Go SDK's copy), the others beside their
// SDKs in sdk-guest.
func templateSources(lang toolbuild.Lang) []string {
	switch lang {
	case toolbuild.LangGo:
		return []string{"internal/engines/toolbuild/templates/go", "internal/engines/toolbuild/templates/sdk/go"}
	case toolbuild.LangC:
		return []string{"internal/engines/toolbuild/templates/c", "sdk-guest/c"}
	}
	return []string{"sdk-guest/" + string(lang)}
}
