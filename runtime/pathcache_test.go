package runtime

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/toolhost/toolhost/runtime/permission"
)

func TestACallAsksAboutAnExternalPathOnce(t *testing.T) {
	t.Parallel()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	project, outside := filepath.Join(root, "p"), filepath.Join(root, "o")
	for _, d := range []string{project, outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	asked := 0
	ask := func(context.Context, permission.Request) error { asked++; return nil }
	newCall := func() *Context {
		return NewContext(Context{Directory: project, Worktree: project, SessionID: "s"}, nil, ask)
	}
	target := filepath.Join(outside, "f")

	call := newCall()
	for range 3 {
		if err := call.CheckExternalDirectory(t.Context(), target, false); err != nil {
			t.Fatal(err)
		}
	}
	if asked != 1 {
		t.Errorf("one call asked %d times about one path, want once", asked)
	}
	if err := call.CheckExternalDirectory(t.Context(), filepath.Join(root, "other"), false); err != nil {
		t.Fatal(err)
	}
	if asked != 2 {
		t.Errorf("another path was not asked about (%d questions)", asked)
	}
	if err := newCall().CheckExternalDirectory(t.Context(), target, false); err != nil {
		t.Fatal(err)
	}
	if asked != 3 {
		t.Errorf("the next call was not asked (%d questions): a reply of once must not outlive its call", asked)
	}
}

func TestARefusedExternalPathIsAskedAgainWithinTheCall(t *testing.T) {
	t.Parallel()
	project := t.TempDir()
	asked := 0
	ask := func(context.Context, permission.Request) error {
		asked++
		return &permission.RejectedError{Permission: PermissionExternalDirectory}
	}
	call := NewContext(Context{Directory: project, Worktree: project}, nil, ask)
	for range 2 {
		if err := call.CheckExternalDirectory(t.Context(), "/elsewhere/f", false); err == nil {
			t.Fatal("a rejected path was let through")
		}
	}
	if asked != 2 {
		t.Errorf("asked %d times, want 2: only allowed outcomes are remembered", asked)
	}
}

func TestRealPathResolvesOncePerCall(t *testing.T) {
	t.Parallel()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	a, b, link := filepath.Join(root, "a"), filepath.Join(root, "b"), filepath.Join(root, "link")
	for _, d := range []string{a, b} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(a, link); err != nil {
		t.Fatal(err)
	}
	call := NewContext(Context{}, nil, nil)
	if got := call.RealPath(link); got != a {
		t.Fatalf("RealPath(link) = %s, want %s", got, a)
	}
	// The link changes during the call: the call keeps its answer (the
	// file tools open through os.Root, which refuses a swapped link), the
	// next call sees the change.
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(b, link); err != nil {
		t.Fatal(err)
	}
	if got := call.RealPath(link); got != a {
		t.Errorf("within the call RealPath(link) = %s, want the first answer %s", got, a)
	}
	if got := NewContext(Context{}, nil, nil).RealPath(link); got != b {
		t.Errorf("the next call resolved %s, want %s", got, b)
	}
	if got := (&Context{}).RealPath(link); got != b {
		t.Errorf("a Context built by hand resolved %s, want %s", got, b)
	}
}

func TestARememberedRootFollowsTheRootWhenItChanges(t *testing.T) {
	t.Parallel()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	a, b := filepath.Join(base, "a"), filepath.Join(base, "b")
	for _, d := range []string{a, b, filepath.Join(a, "sub"), filepath.Join(b, "sub")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// The project is reached through a link, as a checkout under a
	// linked home directory is; a link inside it leads out.
	project := filepath.Join(base, "project")
	if err := os.Symlink(a, project); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(base, filepath.Join(a, "up")); err != nil {
		t.Fatal(err)
	}
	var roots projectRoots // the registry's, shared by its calls
	newCall := func() *Context {
		c := NewContext(Context{Directory: project, Worktree: project}, nil, nil)
		c.roots = &roots
		return c
	}
	tests := []struct{ in, want string }{
		{project, a},
		{filepath.Join(project, "sub", "f.txt"), filepath.Join(a, "sub", "f.txt")},
		{filepath.Join(project, "up", "b"), b},
		{filepath.Join(project, "sub", "..", "up"), base},
	}
	for range 2 { // resolved, then remembered
		c := newCall()
		for _, tt := range tests {
			if got := c.RealPath(tt.in); got != tt.want {
				t.Errorf("RealPath(%q) = %q, want %q", tt.in, got, tt.want)
			}
		}
		if c.Contains(filepath.Join(project, "up", "b")) {
			t.Error("a link inside the project that leads out counts as inside")
		}
	}

	// The link now leads to b: the next call sees b, and a is outside.
	if err := os.Remove(project); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(b, project); err != nil {
		t.Fatal(err)
	}
	c := newCall()
	if got, want := c.RealPath(filepath.Join(project, "sub", "f.txt")), filepath.Join(b, "sub", "f.txt"); got != want {
		t.Errorf("after the root moved, RealPath = %q, want %q", got, want)
	}
	if c.Contains(filepath.Join(a, "sub", "f.txt")) {
		t.Error("the project's old place still counts as inside")
	}
	if !c.Contains(filepath.Join(b, "sub", "f.txt")) {
		t.Error("the project's new place is outside")
	}
}
