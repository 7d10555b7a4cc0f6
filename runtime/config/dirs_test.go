package config

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// fixture is a hermetic world: a home, an XDG config home and a git project
// whose working directory is two levels below the root.
type fixture struct {
	home, xdg, root, cwd string
}

func newFixture(t testing.TB) fixture {
	t.Helper()
	base := t.TempDir()
	f := fixture{
		home: filepath.Join(base, "home"),
		xdg:  filepath.Join(base, "xdg"),
		root: filepath.Join(base, "proj"),
	}
	f.cwd = filepath.Join(f.root, "a", "b")
	for _, d := range []string{f.home, f.xdg, f.cwd, filepath.Join(f.root, ".git")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// opts returns DirOptions reading only env.
func (f fixture) opts(env map[string]string) DirOptions {
	return DirOptions{Directory: f.cwd, Home: f.home, Env: func(k string) string { return env[k] }}
}

func mkdir(t testing.TB, dirs ...string) {
	t.Helper()
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

func TestDirs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		setup func(t *testing.T, f *fixture) (env map[string]string)
		want  func(f fixture) []string
	}{
		{
			name:  "with nothing set the global directory is under home and missing project directories are skipped",
			setup: func(t *testing.T, f *fixture) map[string]string { return nil },
			want: func(f fixture) []string {
				return []string{filepath.Join(f.home, ".config", "toolhost"), filepath.Join(f.home, ".toolhost")}
			},
		},
		{
			name: "XDG_CONFIG_HOME replaces ~/.config",
			setup: func(t *testing.T, f *fixture) map[string]string {
				return map[string]string{"XDG_CONFIG_HOME": f.xdg}
			},
			want: func(f fixture) []string {
				return []string{filepath.Join(f.xdg, "toolhost"), filepath.Join(f.home, ".toolhost")}
			},
		},
		{
			name: "a relative XDG_CONFIG_HOME is ignored as the XDG spec says",
			setup: func(t *testing.T, f *fixture) map[string]string {
				return map[string]string{"XDG_CONFIG_HOME": "rel/xdg"}
			},
			want: func(f fixture) []string {
				return []string{filepath.Join(f.home, ".config", "toolhost"), filepath.Join(f.home, ".toolhost")}
			},
		},
		{
			name: "existing .toolhost directories are listed from the worktree root down to the working directory",
			setup: func(t *testing.T, f *fixture) map[string]string {
				mkdir(t, filepath.Join(f.root, ".toolhost"), filepath.Join(f.cwd, ".toolhost"))
				// A .toolhost file, not a directory, is not a config dir.
				if err := os.WriteFile(filepath.Join(f.root, "a", ".toolhost"), nil, 0o644); err != nil {
					t.Fatal(err)
				}
				return map[string]string{"XDG_CONFIG_HOME": f.xdg, "TOOLHOST_CONFIG_DIR": filepath.Join(f.root, "custom")}
			},
			want: func(f fixture) []string {
				return []string{
					filepath.Join(f.xdg, "toolhost"),
					filepath.Join(f.root, ".toolhost"),
					filepath.Join(f.cwd, ".toolhost"),
					filepath.Join(f.home, ".toolhost"),
					filepath.Join(f.root, "custom"),
				}
			},
		},
		{
			name: "a directory named twice keeps only its later position so TOOLHOST_CONFIG_DIR still wins",
			setup: func(t *testing.T, f *fixture) map[string]string {
				return map[string]string{"XDG_CONFIG_HOME": f.xdg, "TOOLHOST_CONFIG_DIR": filepath.Join(f.xdg, "toolhost", ".")}
			},
			want: func(f fixture) []string {
				return []string{filepath.Join(f.home, ".toolhost"), filepath.Join(f.xdg, "toolhost")}
			},
		},
		{
			name: "a home inside the worktree lists its .toolhost once, at the home position",
			setup: func(t *testing.T, f *fixture) map[string]string {
				f.home = filepath.Join(f.root, "a")
				mkdir(t, filepath.Join(f.root, ".toolhost"), filepath.Join(f.home, ".toolhost"))
				return map[string]string{"XDG_CONFIG_HOME": f.xdg}
			},
			want: func(f fixture) []string {
				return []string{
					filepath.Join(f.xdg, "toolhost"),
					filepath.Join(f.root, ".toolhost"),
					filepath.Join(f.root, "a", ".toolhost"),
				}
			},
		},
		{
			name: "a working directory outside the worktree is its own project",
			setup: func(t *testing.T, f *fixture) map[string]string {
				f.cwd = filepath.Join(f.xdg, "elsewhere")
				mkdir(t, filepath.Join(f.root, ".toolhost"), filepath.Join(f.cwd, ".toolhost"))
				return map[string]string{"XDG_CONFIG_HOME": f.xdg}
			},
			want: func(f fixture) []string {
				return []string{
					filepath.Join(f.xdg, "toolhost"),
					filepath.Join(f.xdg, "elsewhere", ".toolhost"),
					filepath.Join(f.home, ".toolhost"),
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			env := tt.setup(t, &f)
			o := f.opts(env)
			if f.cwd != filepath.Join(f.root, "a", "b") {
				o.Worktree = f.root
			}
			got := Dirs(o)
			if want := tt.want(f); !slices.Equal(got, want) {
				t.Errorf("Dirs() =\n  %q\nwant\n  %q", got, want)
			}
		})
	}
}

func TestFindWorktree(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		setup func(t *testing.T, base string) (dir, want string)
	}{
		{
			name: "the nearest ancestor with a .git directory is the worktree",
			setup: func(t *testing.T, base string) (string, string) {
				mkdir(t, filepath.Join(base, "repo", ".git"), filepath.Join(base, "repo", "x", "y"))
				return filepath.Join(base, "repo", "x", "y"), filepath.Join(base, "repo")
			},
		},
		{
			name: "a .git file, as in a linked worktree or submodule, marks the worktree too",
			setup: func(t *testing.T, base string) (string, string) {
				mkdir(t, filepath.Join(base, ".git"), filepath.Join(base, "sub", "pkg"))
				if err := os.WriteFile(filepath.Join(base, "sub", ".git"), []byte("gitdir: ../.git/modules/sub\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				return filepath.Join(base, "sub", "pkg"), filepath.Join(base, "sub")
			},
		},
		{
			name: "the directory itself is the worktree when it holds .git",
			setup: func(t *testing.T, base string) (string, string) {
				mkdir(t, filepath.Join(base, ".git"))
				return base, base
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir, want := tt.setup(t, t.TempDir())
			if got := FindWorktree(dir); got != want {
				t.Errorf("FindWorktree(%s) = %s, want %s", dir, got, want)
			}
		})
	}
}

func TestFindWorktreeWithoutGitReturnsTheDirectory(t *testing.T) {
	t.Parallel()
	// Temp directories may sit inside a git checkout on some machines, so
	// only assert when no ancestor has .git.
	dir := t.TempDir()
	for cur := dir; ; cur = filepath.Dir(cur) {
		if _, err := os.Lstat(filepath.Join(cur, ".git")); err == nil {
			t.Skipf("%s is inside a git worktree", dir)
		}
		if filepath.Dir(cur) == cur {
			break
		}
	}
	if got := FindWorktree(dir); got != dir {
		t.Errorf("FindWorktree(%s) = %s, want the directory itself", dir, got)
	}
}

func TestResolveMakesTheWorkingDirectoryAbsoluteAndFindsItsWorktree(t *testing.T) {
	f := newFixture(t)
	t.Chdir(f.root)
	got, err := DirOptions{Directory: filepath.Join("a", "b", ".."), Home: f.home}.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(f.root, "a"); got.Directory != want {
		t.Errorf("Directory = %q, want %q", got.Directory, want)
	}
	if got.Worktree != f.root {
		t.Errorf("Worktree = %q, want the git root %q", got.Worktree, f.root)
	}
	if got.Env == nil {
		t.Error("Env is nil, want the process's")
	}
	empty, err := DirOptions{Home: f.home}.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	if empty.Directory != f.root {
		t.Errorf("no Directory resolved to %q, want the process's working directory %q", empty.Directory, f.root)
	}
}

func TestResolveFailsWhenTheWorkingDirectoryIsGone(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("a directory in use cannot be removed on Windows")
	}
	gone := t.TempDir()
	t.Chdir(gone)
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}
	if _, err := (DirOptions{}).Resolve(); err == nil || !strings.Contains(err.Error(), "working directory") {
		t.Errorf("Resolve = %v, want an error naming the working directory", err)
	}
}
