//go:build unix

package fspath

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestResolveFollowsLinksAsTheKernelDoesAndNamesThem(t *testing.T) {
	t.Parallel()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"real/sub", "other"} {
		os.MkdirAll(filepath.Join(root, d), 0o755)
	}
	link := func(target, name string) {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	link("real/sub", "deep")                  // relative
	link(filepath.Join(root, "other"), "abs") // absolute
	link("loop", "loop")                      // to itself
	link(filepath.Join(root, "deep"), "via")  // a link to a link
	for _, tt := range []struct {
		name, path, want string
		links            []string
	}{
		{"no link", "real/sub", "real/sub", nil},
		{"a relative link", "deep/x", "real/sub/x", []string{"deep"}},
		{"'..' applies to where the link led", "deep/../y", "real/y", []string{"deep"}},
		{"an absolute link", "abs/z", "other/z", []string{"abs"}},
		{"a link to a link", "via/w", "real/sub/w", []string{"via", "deep"}},
		{"missing elements stay as written", "real/none/a/b", "real/none/a/b", nil},
		{"a loop ends the walk past the limit", "loop/q", "loop/q", []string{"loop", "loop", "loop", "loop"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, links := Resolve(root+"/"+tt.path, 3) // not joined: Join would clean "deep/.."
			if want := filepath.Join(root, tt.want); got != want {
				t.Errorf("resolved %s, want %s", got, want)
			}
			var wantLinks []string
			for _, l := range tt.links {
				wantLinks = append(wantLinks, filepath.Join(root, l))
			}
			if !slices.Equal(links, wantLinks) {
				t.Errorf("links %v, want %v", links, wantLinks)
			}
		})
	}
}
