package fspath

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRealFollowsLinksAlsoForPathsThatDoNotExistYet(t *testing.T) {
	t.Parallel()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(base, "outside")
	if err := os.MkdirAll(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(base, "lnk")); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ in, want string }{
		{filepath.Join(base, "lnk"), outside},
		{filepath.Join(base, "lnk", "new", "file"), filepath.Join(outside, "new", "file")},
		{filepath.Join(base, "plain", "..", "lnk", "f"), filepath.Join(outside, "f")},
		{filepath.Join(base, "missing"), filepath.Join(base, "missing")},
	}
	for _, tt := range tests {
		if got := Real(tt.in); got != tt.want {
			t.Errorf("Real(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestWithin(t *testing.T) {
	t.Parallel()
	tests := []struct {
		root, target string
		want         bool
	}{
		{"/p", "/p", true},
		{"/p", "/p/a/b", true},
		{"/p", "/p/..a", true},
		{"/p", "/pa", false},
		{"/p", "/", false},
		{"/p", "/p/../q", false},
		{"/p/a", "/p", false},
		{"/", "/anything", true},
	}
	for _, tt := range tests {
		if got := Within(tt.root, tt.target); got != tt.want {
			t.Errorf("Within(%q, %q) = %v, want %v", tt.root, tt.target, got, tt.want)
		}
	}
}

func TestRealBelowAgreesWithRealOrDefersToIt(t *testing.T) {
	t.Parallel()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"a/b", "outside"} {
		if err := os.MkdirAll(filepath.Join(base, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(base, "a", "b", "f.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(base, "outside"), filepath.Join(base, "a", "lnk")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("f.txt", filepath.Join(base, "a", "b", "rel-lnk")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		rel    string
		wantOK bool
	}{
		{".", true},
		{"a/b/f.txt", true},
		{"a/b/missing/deeper", true},
		{"a/b/f.txt/under-a-file", true},
		{"a/lnk", false},
		{"a/lnk/x", false},
		{"a/b/rel-lnk", false},
		{"../escape", false},
		{"a/../a/b", false},
		{"/abs", false},
	}
	for _, tt := range tests {
		got, ok := RealBelow(base, tt.rel)
		if ok != tt.wantOK {
			t.Errorf("RealBelow(%q) ok = %v, want %v", tt.rel, ok, tt.wantOK)
			continue
		}
		if ok {
			if want := Real(filepath.Join(base, tt.rel)); got != want {
				t.Errorf("RealBelow(%q) = %q, Real = %q", tt.rel, got, want)
			}
		}
	}
}

// withinByRel is Within's long way, which its shortcut for clean absolute
// paths must agree with.
func withinByRel(root, target string) bool {
	if root == target {
		return true
	}
	rel, err := filepath.Rel(root, target)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

func FuzzWithinAgreesWithRel(f *testing.F) {
	for _, s := range [][2]string{{"/p", "/p/a"}, {"/p", "/pa"}, {"/", "/x"}, {"/p/", "/p/a"}, {"/p/./a", "/p/a/b"}, {"/p/..", "/q"}, {"p", "p/a"}, {"/p", "/p/."}, {"//p", "/p/a"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, root, target string) {
		if got, want := Within(root, target), withinByRel(root, target); got != want {
			t.Errorf("Within(%q, %q) = %v, Rel says %v", root, target, got, want)
		}
	})
}

func FuzzRelAgreesWithFilepathRel(f *testing.F) {
	for _, s := range [][2]string{{"/p", "/p/a"}, {"/p", "/p"}, {"/", "/x/y"}, {"/", "/"}, {"/p", "/pa"}, {"/p/", "/p/a"}, {"/p/./a", "/p/a/b"}, {"p", "p/a"}, {"/p", "/q"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, root, target string) {
		got, err := Rel(root, target)
		want, wantErr := filepath.Rel(root, target)
		if got != want || (err != nil) != (wantErr != nil) {
			t.Errorf("Rel(%q, %q) = %q, %v; filepath.Rel says %q, %v", root, target, got, err, want, wantErr)
		}
	})
}
