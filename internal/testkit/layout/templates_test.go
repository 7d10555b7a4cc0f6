package layout

import (
	"bytes"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Executing a text/template or html/template template may call any method
// by name (reflect.Value.MethodByName). Once that is reachable the linker
// keeps every exported method of every type ever stored in an interface:
// 5.4 MB of toolhost's 54 MB stripped binary (BENCHMARKS.md, "Getting
// it"). So no code of the module uses them (tests may), and nothing asks
// cobra for a custom help, usage or version template, cobra's one path
// into text/template. internal/content/textfill fills placeholders instead.
var templateUses = []string{"SetVersionTemplate(", "SetHelpTemplate(", "SetUsageTemplate("}

func TestNoCodeLinksTheTemplateEngines(t *testing.T) {
	t.Parallel()
	files := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		files++
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, src, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			if path, _ := strconv.Unquote(imp.Path.Value); path == "text/template" || path == "html/template" {
				t.Errorf("%s imports %s: it keeps every exported method in the binary; fill placeholders with internal/content/textfill, or write the text in Go", p, path)
			}
		}
		for _, use := range templateUses {
			if bytes.Contains(src, []byte(use)) {
				t.Errorf("%s calls cobra's %s): cobra then links text/template; print the text from Go instead (as internal/cli's versionFlag does)", p, use)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("walked %d Go files; the walk is broken", files)
	}
}
