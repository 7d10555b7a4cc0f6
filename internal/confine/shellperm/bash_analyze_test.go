//go:build unix

package shellperm

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/permission"
)

// inFakeProject treats /project as the project.
func inFakeProject(p string) bool { return p == "/project" || strings.HasPrefix(p, "/project/") }

// bashRequestsFor analyses command in /project and returns its requests by
// permission.
func bashRequestsFor(t testing.TB, command string) map[string]permission.Request {
	t.Helper()
	reqs, err := Requests(command, "/project", "/project", inFakeProject)
	if err != nil {
		t.Fatalf("Requests(%q): %v", command, err)
	}
	out := map[string]permission.Request{}
	for _, r := range reqs {
		if _, dup := out[r.Permission]; dup {
			t.Fatalf("two requests for permission %s", r.Permission)
		}
		out[r.Permission] = r
	}
	return out
}

func TestBashPermissionPatterns(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		command  string
		patterns []string
		always   []string
	}{
		{"a pipeline yields one pattern per command", "ls -la | grep foo | wc -l", []string{"ls -la", "grep foo", "wc -l"}, []string{"ls *", "grep *", "wc *"}},
		{"an && list yields both commands with their arity prefixes", "git checkout main && npm run build", []string{"git checkout main", "npm run build"}, []string{"git checkout *", "npm run build *"}},
		{"an || list and ; list are split too", "make test || echo failed; docker compose up web", []string{"make test", "echo failed", "docker compose up web"}, []string{"make test *", "echo *", "docker compose up *"}},
		{"a subshell's commands are found and cd is not a pattern", "(cd sub && go test ./...)", []string{"go test ./..."}, []string{"go test *"}},
		{"a command substitution is a command of its own", "echo $(git rev-parse HEAD)", []string{"echo $(git rev-parse HEAD)", "git rev-parse HEAD"}, []string{"echo *", "git rev-parse *"}},
		{"a backtick substitution is a command of its own", "echo `date +%s`", []string{"echo `date +%s`", "date +%s"}, []string{"echo *", "date *"}},
		{"a bash -c payload is parsed and the shell is asked too", "bash -c 'rm -rf build && go test ./...'", []string{"bash -c rm -rf build && go test ./...", "rm -rf build", "go test ./..."}, []string{"bash *", "rm *", "go test *"}},
		{"nested shells are parsed to the bottom", `bash -c "sh -c 'curl example.test'"`, []string{"bash -c sh -c 'curl example.test'", "sh -c curl example.test", "curl example.test"}, []string{"bash *", "sh *", "curl *"}},
		{"an eval payload is parsed", "eval 'rm -rf dist'", []string{"eval rm -rf dist", "rm -rf dist"}, []string{"eval *", "rm *"}},
		{"a script file run by bash is not a payload but a hole, with no always pattern", "bash ./build.sh -c", []string{"bash ./build.sh -c"}, nil},
		{"assignments and redirections are not part of the pattern", "CGO_ENABLED=0 go build ./... > build.log 2>&1", []string{"go build ./..."}, []string{"go build *"}},
		{"commands inside loops and conditionals are found", "for f in *.go; do gofmt -l $f; done; if test -f x; then cat x; fi", []string{"gofmt -l $f", "test -f x", "cat x"}, []string{"gofmt *", "test *", "cat *"}},
		{"repeated commands are asked once", "git status && git status && git diff", []string{"git status", "git diff"}, []string{"git status *", "git diff *"}},
		{"quotes are removed before matching", `"git" 'checkout' m""ain`, []string{"git checkout main"}, []string{"git checkout *"}},
		{"a process substitution is a command of its own", "diff <(sort a) b", []string{"diff <(sort a) b", "sort a"}, []string{"diff *", "sort *"}},
		{"a wrapped command is a request of its own", "timeout 5 env LC_ALL=C nice -n 5 make test", []string{"timeout 5 env LC_ALL=C nice -n 5 make test", "env LC_ALL=C nice -n 5 make test", "nice -n 5 make test", "make test"}, []string{"timeout *", "env *", "nice *", "make test *"}},
		{"a path-qualified command is asked by its path and its name", "/bin/ls -la", []string{"/bin/ls -la", "ls -la"}, []string{"/bin/ls *", "ls *"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := bashRequestsFor(t, tt.command)[PermissionBash]
			if !slices.Equal(got.Patterns, tt.patterns) {
				t.Errorf("patterns = %q, want %q", got.Patterns, tt.patterns)
			}
			if !slices.Equal(got.Always, tt.always) {
				t.Errorf("always = %q, want %q", got.Always, tt.always)
			}
		})
	}
}

func TestBashRefusesACommandThatDoesNotParse(t *testing.T) {
	t.Parallel()
	for _, cmd := range []string{"echo 'unterminated", "ls &&", `bash -c 'echo "open'`, "echo a\x00b"} {
		if _, err := Requests(cmd, "/project", "/project", inFakeProject); err == nil || !strings.Contains(err.Error(), "parse command") {
			t.Errorf("Requests(%q) error = %v, want a parse error", cmd, err)
		}
	}
}

func TestResolveOnDiskFollowsLinksBeforeDotDot(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	outside := filepath.Join(root, "outside", "deep")
	project := filepath.Join(root, "project")
	for _, d := range []string{outside, project} {
		if err := mkdirAll(d); err != nil {
			t.Fatal(err)
		}
	}
	if err := symlink(outside, filepath.Join(project, "lnk")); err != nil {
		t.Fatal(err)
	}
	if err := symlink("lnk/..", filepath.Join(project, "up")); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ in, want string }{
		{project + "/lnk/../f", filepath.Join(root, "outside", "f")},
		{project + "/lnk/f", filepath.Join(outside, "f")},
		{project + "/up/f", filepath.Join(root, "outside", "f")},
		{project + "/new/../f", filepath.Join(project, "f")},
		{project + "/./a/./b", filepath.Join(project, "a", "b")},
	}
	for _, tt := range tests {
		if got := resolveOnDisk(tt.in); got != tt.want {
			t.Errorf("resolveOnDisk(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// FuzzBashPermissions checks that any command line either fails to parse
// or yields well-formed requests, without panicking: the analysis guards
// every bash call, so it must hold up to whatever a model sends.
func FuzzBashPermissions(f *testing.F) {
	for _, seed := range []string{
		"ls -la | grep foo", "git checkout main && npm run build", "(cd .. && rm -rf x)",
		"echo $(git rev-parse HEAD) `date`", "bash -c 'sh -c \"eval ls\"'", "cat <<EOF > ../x\nhi\nEOF",
		"for f in *; do echo \"$f\"; done 2>/dev/null", "A=1 B=2", "f() { rm -rf /; }; f", "diff <(sort a) >(cat)",
		"x='a[$(touch p)]'; [[ $x -eq 1 ]]", "echo ${x@P}", "env -S 'rm f' ", "find . -exec rm {} +",
		"timeout -s KILL 5 rm f", "D=/o; cd $D; echo x > f", "declare -i y=\"$x\"", "xargs -I{} rm {}",
		"echo $(<<EOF\nEOF)\ntouch p\nEOF\n)", "echo {1..99999999}{a,b}", "env -S 'a\\_b' c", "su -lc 'rm f' root",
		"time -- rm f", "command read 'a[$(x)]'", "x=-v; test $x y", "BASH_CMDS=(ls /bin/rm)", "echo x <f >/dev/fd/0",
		"cd a; cd b; cd c; cd d; cd e; cd f; cd g; echo > x", "find . -exec sh -c 'echo {}' \\;", `printf -v'a[1]' x`,
		`awk 'BEGIN{system("touch p")}'`, `sed -n '1e touch p' f`, `tar -I 'sh -c x' -cf a f`, `git -c alias.x='!touch p' x`,
		`ssh -o ProxyCommand='x' h`, `PS4='$(x)'; set -x`, `echo x > s; ./s`, `sqlite3 db '.shell x'`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, command string) {
		reqs, err := Requests(command, "/project", "/project", inFakeProject)
		if err != nil {
			return
		}
		for _, r := range reqs {
			if len(r.Patterns) == 0 {
				t.Errorf("%s request without patterns", r.Permission)
			}
			for p, tmpl := range r.Unresolved {
				if !slices.Contains(r.Patterns, p) {
					t.Errorf("unresolved %q is not one of the patterns %q", p, r.Patterns)
				}
				if !strings.Contains(tmpl, permission.Hole) {
					t.Errorf("unresolved %q has a template without a hole: %q", p, tmpl)
				}
			}
			for _, a := range r.Always {
				if strings.Contains(a, permission.Hole) {
					t.Errorf("always pattern %q holds a hole", a)
				}
			}
			if r.Permission == runtime.PermissionExternalDirectory {
				for _, d := range r.Patterns {
					if _, unresolved := r.Unresolved[d]; unresolved {
						continue
					}
					if !filepath.IsAbs(d) || inFakeProject(strings.TrimSuffix(d, "/*")) {
						t.Errorf("external dir %q is not an absolute path outside the project", d)
					}
				}
			}
		}
	})
}

func mkdirAll(d string) error        { return os.MkdirAll(d, 0o755) }
func symlink(target, l string) error { return os.Symlink(target, l) }
