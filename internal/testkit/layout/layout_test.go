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

// reasonsHeading starts the paragraph of a package doc that gives the
// reason for each of its long files: the heading, then entries separated
// by semicolons, each the file's name followed by why it stays whole, e.g.
//
//	Files over 500 lines, and why they stay whole: loop.go is the loop
//	itself, read top to bottom as one story; walk.go is ...
const reasonsHeading = "Files over 500 lines, and why they stay whole:"

// minReasonWords is the fewest words a reason may have: enough for a
// clause, so a bare mention of the file does not pass.
const minReasonWords = 6

// longFileReason is the reason the package doc gives for the long file
// name: the text after name in its entry of the reasons paragraph (see
// reasonsHeading), "" when there is none.
func longFileReason(doc, name string) string {
	i := strings.Index(doc, reasonsHeading)
	if i < 0 {
		return ""
	}
	para := doc[i+len(reasonsHeading):]
	if j := strings.Index(para, "\n\n"); j >= 0 {
		para = para[:j]
	}
	for _, entry := range strings.Split(strings.Join(strings.Fields(para), " "), ";") {
		if reason, ok := strings.CutPrefix(strings.TrimSpace(entry), name+" "); ok {
			return reason
		}
	}
	return ""
}

// root is the repository root, two levels above this package.
const root = "../../.."

func TestLongFilesAreExplainedInTheirPackageDoc(t *testing.T) {
	t.Parallel()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "templates" || name == "node_modules" || name == "third_party") {
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
		if reason := longFileReason(doc, name); len(strings.Fields(reason)) < minReasonWords {
			rel, _ := filepath.Rel(root, p)
			t.Errorf("%s has %d lines (more than %d) and its package doc gives no reason: split it, or add to the package doc %q and then %q followed by why it stays whole (%d words at least), entries separated by semicolons", rel, lines, maxLines, reasonsHeading, name, minReasonWords)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestALongFilesReasonIsAClauseInTheReasonsParagraph(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, doc string
		want      bool
	}{
		{"a reason in the paragraph counts", "Files over 500 lines, and why they stay whole: big.go is one parser read top to bottom.", true},
		{"an entry after another counts", "Files over 500 lines, and why they stay whole: a.go is one suite read in order as a list; big.go is one parser read top to bottom.", true},
		{"the reason may wrap lines", "Files over 500 lines, and why they stay whole: big.go is one parser\nread top to bottom.", true},
		{"a mention elsewhere is not a reason", "The parser (big.go) reads the input.\n\nFiles over 500 lines, and why they stay whole: a.go is one suite read in order as a list.", false},
		{"a name without a clause is not a reason", "Files over 500 lines, and why they stay whole: big.go; a.go is one suite read in order as a list.", false},
		{"a clause too short is not a reason", "Files over 500 lines, and why they stay whole: big.go is long.", false},
		{"another paragraph is not the reasons paragraph", "Files over 500 lines, and why they stay whole: a.go is one suite read in order.\n\nbig.go is one parser read top to bottom.", false},
		{"a name that only ends the same is not the file", "Files over 500 lines, and why they stay whole: notbig.go is one parser read top to bottom.", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := len(strings.Fields(longFileReason(tt.doc, "big.go"))) >= minReasonWords; got != tt.want {
				t.Errorf("reason for big.go in %q: %v, want %v", tt.doc, got, tt.want)
			}
		})
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
