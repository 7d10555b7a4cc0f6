package trust

import (
	"bytes"
	"log/slog"
	"os"
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

// A process left running in an untrusted project moves its .toolhost
// folder away while the host reads the config and back once the host has
// decided what to hold back: the folder must still be held back, or the
// wasm tools and plugins in it load (they read env.ToolDirs alone).
func TestAnUntrustedProjectsToolFolderStaysHeldBackWhenItComesAndGoesDuringTheLoad(t *testing.T) {
	// Not parallel: it sets hookAfterLoad.
	root, o := project(t)
	dir := filepath.Join(root, ".toolhost")
	hookAfterLoad = func() {
		if err := os.Rename(dir, dir+".away"); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { hookAfterLoad = nil })
	p, loaded, err := OpenProject(o, t.TempDir(), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(dir+".away", dir); err != nil {
		t.Fatal(err)
	}
	if p.Status.Trusted {
		t.Fatal("the project is trusted; the test needs an untrusted one")
	}
	if !slices.Contains(loaded.Dirs, dir) {
		t.Fatalf("the load did not see %s: %q", dir, loaded.Dirs)
	}
	for _, got := range [][]string{p.ToolDirs(loaded.Dirs), p.WatchDirs(loaded.Dirs)} {
		if slices.Contains(got, dir) {
			t.Errorf("the untrusted project's %s loads tools: %q", dir, got)
		}
	}
}
