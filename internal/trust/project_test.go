package trust

import (
	"bytes"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/runtime/permission"
)

func TestOpenProjectResolvesThePathsAndLoadsTheConfigItsTrustAllows(t *testing.T) {
	// Not parallel: it changes the working directory.
	for _, trusted := range []bool{false, true} {
		name := "an untrusted project's config is held back and the notice logged"
		if trusted {
			name = "a trusted project's config loads"
		}
		t.Run(name, func(t *testing.T) {
			root, o := project(t)
			data := t.TempDir()
			if trusted {
				m, err := Scan(o)
				if err != nil {
					t.Fatal(err)
				}
				if err := StoreIn(data).Trust(m.Worktree, m.Digest, "test"); err != nil {
					t.Fatal(err)
				}
			}
			t.Chdir(filepath.Dir(root))
			o.Directory = filepath.Join(filepath.Base(root), "src")
			var log bytes.Buffer
			p, loaded, err := OpenProject(o, data, slog.New(slog.NewTextHandler(&log, nil)))
			if err != nil {
				t.Fatal(err)
			}
			if d := p.Dirs(); d.Directory != filepath.Join(root, "src") || d.Worktree != root {
				t.Errorf("Dirs = %q in worktree %q, want %q in %q", d.Directory, d.Worktree, filepath.Join(root, "src"), root)
			}
			if p.Status.Trusted != trusted {
				t.Errorf("Trusted = %v, want %v", p.Status.Trusted, trusted)
			}
			allowed := slices.ContainsFunc(loaded.Config.Permission.Rules, func(r permission.Rule) bool {
				return r.Permission == "bash" && r.Action == permission.Allow
			})
			if allowed != trusted {
				t.Errorf("the project's bash rule in effect = %v, want %v", allowed, trusted)
			}
			if noticed := strings.Contains(log.String(), "not trusted"); noticed == trusted {
				t.Errorf("notice logged = %v, want %v: %q", noticed, !trusted, log.String())
			}
		})
	}
}
