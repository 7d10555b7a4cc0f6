//go:build linux

package shellperm

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolhost/toolhost/runtime/permission"
)

// differentialSkip are corpus commands not run for real: they would touch
// the machine outside the scratch directory.
var differentialSkip = []string{"/dev/shm", "/dev/tcp", "sudo ", "su -c", "enable -f", "/proc/self/root", "/usr/bin/../bin/rm", "/bin/rm", "/bin/r?", "/bin/r["}

// shimmed are the programs replaced by logging shims; wrappers log and then
// run the real program (so what they run is logged too), the rest only log.
var shimmed = map[string]bool{ // true: exec the real program after logging
	"rm": false, "touch": false, "ls": false, "cat": false, "cp": false, "mv": false,
	"mkdir": false, "chmod": false, "chown": false, "ln": false, "head": false, "sort": false,
	"diff": false, "wc": false, "node": false, "perl": false, "ruby": false, "java": false,
	"python3": false, "go": false, "make": false, "busybox": false, "date": false, "tee": false,
	"env": true, "nice": true, "nohup": true, "timeout": true, "stdbuf": true, "xargs": true,
	"find": true, "setsid": true, "flock": true, "bash": true, "sh": true,
	// The programs that run commands from their arguments run for real,
	// so what their system(), e command, checkpoint action or alias runs
	// is logged by the shims above.
	"awk": true, "mawk": true, "gawk": true, "sed": true, "tar": true, "git": true,
}

// realPrograms must be installed for the differential test to mean
// anything about the programs that run commands from their arguments.
var realPrograms = []string{"awk", "sed", "tar", "git"}

// programsSection is the corpus section whose commands must really run
// what they hide, so the test shows the analysis catches real behaviour.
const programsSection = "## programs that run commands from their arguments"

// TestBashCorpusDifferential runs each corpus command with real bash in a
// scratch directory whose PATH holds only logging shims, and checks that
// every program that actually ran was covered by a request the analysis
// produced: a bash pattern naming it, or an unresolvable request (which
// only a rule matching anything can allow). It is the check that the
// parser and bash agree on what runs.
func TestBashCorpusDifferential(t *testing.T) {
	bashPath, err := exec.LookPath("bash")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("bash is not installed; CI must have it")
		}
		t.Skip("bash is not installed")
	}
	_, cases, _ := readBashCorpus(t)
	haveReal := true
	for _, p := range realPrograms {
		if _, err := exec.LookPath(p); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is not installed; CI must have it", p)
			}
			t.Logf("%s is not installed: the commands that use it run without it", p)
			haveReal = false
		}
	}
	shims := t.TempDir()
	for name, real := range shimmed {
		script := "#!" + bashPath + "\n" + shimLog(name)
		if real {
			p, err := exec.LookPath(name)
			if err != nil {
				continue
			}
			script += "exec " + p + " \"$@\"\n"
		}
		if name == "bash" || name == "sh" {
			script = "#!" + bashPath + "\n" + shimLog(name) + "exec " + bashPath + " \"$@\"\n"
		}
		if err := os.WriteFile(filepath.Join(shims, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// Each command runs in its own scratch directory: they run side by
	// side (most of the time is bash, git and the shims starting).
	var ran, checked, hidden atomic.Int64 // hidden: cases of programsSection whose hidden touch really ran
	scratches := t.TempDir()
	t.Run("commands", func(t *testing.T) {
		for _, c := range cases {
			if skipDifferential(c.command) {
				continue
			}
			t.Run(fmt.Sprintf("line %d", c.line), func(t *testing.T) {
				t.Parallel()
				// Under the whole test's folder, removed at its end: a
				// command's background part (cat <(rm f)) may still be
				// writing when bash has exited.
				scratch, err := os.MkdirTemp(scratches, "")
				if err != nil {
					t.Fatal(err)
				}
				home := filepath.Join(scratch, "home")
				work := filepath.Join(scratch, "work")
				for _, d := range []string{home, work} {
					if err := os.MkdirAll(d, 0o755); err != nil {
						t.Fatal(err)
					}
				}
				if err := os.WriteFile(filepath.Join(work, "f"), []byte("f\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				if c.section == programsSection && strings.Contains(c.command, "git") {
					// A repository with one commit, so git's hooks, pager,
					// fsmonitor and aliases really run.
					gitRepo(t, work, home)
				}
				log := filepath.Join(scratch, "log")
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				cmd := exec.CommandContext(ctx, bashPath, "-c", c.command)
				cmd.Dir = work
				cmd.Env = []string{"PATH=" + shims, "SHIM_LOG=" + log, "HOME=" + home, "LC_ALL=C"}
				_ = cmd.Run() // many corpus commands fail; what ran is what matters
				cancel()
				ran.Add(1)
				data, _ := os.ReadFile(log)
				if len(data) == 0 {
					return
				}
				reqs, err := Requests(c.command, work, work, func(p string) bool { return strings.HasPrefix(p, work) })
				if err != nil {
					t.Errorf("%s:%d: %q ran programs but the analysis refused to parse it: %v", bashCorpusFile, c.line, c.command, err)
					return
				}
				if c.section == programsSection && strings.Contains(string(data), "touch p") {
					hidden.Add(1)
				}
				for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
					prog := strings.Fields(line)[0]
					checked.Add(1)
					ok := covered(reqs, prog)
					if c.section == programsSection {
						// Here the outer command's text names what it hides
						// (awk 'BEGIN{system("touch p")}'): only a request that
						// runs prog, or a Hole, covers it.
						ok = coveredAsCommand(reqs, prog)
					}
					if !ok {
						t.Errorf("%s:%d: %q ran %q, which no request covers; requests: %+v", bashCorpusFile, c.line, c.command, line, reqs)
					}
				}
			})
		}
	})
	if ran.Load() < 100 || checked.Load() < 100 {
		t.Errorf("only %d corpus commands ran, and %d programs were checked", ran.Load(), checked.Load())
	}
	if haveReal && hidden.Load() < 40 {
		t.Errorf("only %d commands of %q really ran their hidden touch; the real programs did not do what the corpus says they do", hidden.Load(), programsSection)
	}
	t.Logf("%d commands ran %d programs, each covered by a request; %d hid a touch that really ran", ran.Load(), checked.Load(), hidden.Load())
}

// shimLog is the shim's logging: one line per run, newlines in its
// arguments escaped. git's own shell scripts (git-submodule, git-bisect)
// run sed and the like as their implementation; those runs are not
// logged, but a touch is, whoever runs it.
func shimLog(name string) string {
	return `a="$*"; parent=; read -r parent < /proc/$PPID/comm 2>/dev/null
if [[ $parent != git-* || ` + name + ` == touch ]]; then printf '%s\n' "` + name + ` ${a//$'\n'/\\n}" >> "$SHIM_LOG"; fi
`
}

func skipDifferential(command string) bool {
	for _, s := range differentialSkip {
		if strings.Contains(command, s) {
			return true
		}
	}
	return false
}

var wordBoundary = regexp.MustCompile(`[^A-Za-z0-9_./-]+`)

// covered: a bash request names prog as one of its words (the command, or
// inside an export a person is shown), or some request is wholly
// unresolvable.
func covered(reqs []permission.Request, prog string) bool {
	for _, r := range reqs {
		if r.Permission != PermissionBash {
			continue
		}
		for _, p := range r.Patterns {
			if t, ok := r.Unresolved[p]; ok && t == permission.Hole {
				return true
			}
			for _, w := range wordBoundary.Split(p, -1) {
				if filepath.Base(w) == prog {
					return true
				}
			}
		}
	}
	return false
}

// coveredAsCommand: a bash request runs prog (its first word names it),
// or some request is wholly unresolvable.
func coveredAsCommand(reqs []permission.Request, prog string) bool {
	for _, r := range reqs {
		if r.Permission != PermissionBash {
			continue
		}
		for _, p := range r.Patterns {
			if t, ok := r.Unresolved[p]; ok && t == permission.Hole {
				return true
			}
			if f := strings.Fields(p); len(f) > 0 && filepath.Base(f[0]) == prog {
				return true
			}
		}
	}
	return false
}

// gitRepo makes dir a git repository with f committed, using the real git
// (not the shim), or does nothing when git is missing.
func gitRepo(t *testing.T, dir, home string) {
	t.Helper()
	gitPath, err := exec.LookPath("git")
	if err != nil {
		return
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "f"}, {"-c", "user.name=t", "-c", "user.email=t@example.test", "commit", "-qm", "init"}} {
		cmd := exec.Command(gitPath, args...)
		cmd.Dir = dir
		cmd.Env = []string{"HOME=" + home, "LC_ALL=C", "GIT_CONFIG_NOSYSTEM=1"}
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}
