package layout

import (
	"bytes"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxLines is the length above which a file needs a reason.
const maxLines = 500

// root is the repository root, two levels above this package.
const root = "../.."

func TestLongFilesAreExplainedInTheirPackageDoc(t *testing.T) {
	t.Parallel()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "templates" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		lines := bytes.Count(data, []byte("\n"))
		if lines <= maxLines {
			return nil
		}
		doc := packageDoc(t, filepath.Dir(p))
		if !strings.Contains(doc, name) {
			rel, _ := filepath.Rel(root, p)
			t.Errorf("%s has %d lines (more than %d) and its package doc does not name it with a reason: split it, or say in the package doc why it stays whole", rel, lines, maxLines)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// packageDoc is the package comment of the Go package in dir.
func packageDoc(t *testing.T, dir string) string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var doc strings.Builder
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, e.Name()), nil, parser.PackageClauseOnly|parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		if f.Doc != nil {
			doc.WriteString(f.Doc.Text())
		}
	}
	return doc.String()
}
