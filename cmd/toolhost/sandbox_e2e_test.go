package main_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/confine/sandbox"
	"github.com/toolhost/toolhost/internal/testkit/e2e"
)

// TestCallBashIsConfinedByTheHelperProgramBesideToolhost runs `toolhost
// call bash` with the sandbox on, once with the helper program beside the
// binary (as a release installs it) and once with toolhost alone: the
// command is confined either way. Where toolhost forks commands itself
// (sandbox.ForksCommands) every command's parent is toolhost. Elsewhere
// the program confines them when there is one: once a call has kept a
// sandbox plan, a lone `call bash` command is the prestarted one-shot
// helper's own process, so its parent is toolhost; the first call's, and
// commands of a batch, are started by a zygote, which shows which program
// confines them.
func TestCallBashIsConfinedByTheHelperProgramBesideToolhost(t *testing.T) {
	t.Parallel()
	if abi, err := sandbox.Available(); err != nil || abi < sandbox.MinScopeABI {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the sandbox needs Landlock ABI %d: %v", sandbox.MinScopeABI, err)
		}
		t.Skipf("the sandbox needs Landlock ABI %d: %v", sandbox.MinScopeABI, err)
	}
	withProgram := e2e.Binary(t)
	if _, err := os.Stat(filepath.Join(filepath.Dir(withProgram), sandbox.HelperName)); err != nil {
		t.Fatalf("e2e.Binary built no helper program beside toolhost: %v", err)
	}
	alone := filepath.Join(t.TempDir(), "toolhost")
	b, err := os.ReadFile(withProgram)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(alone, b, 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ name, bin, parent string }{
		{"the helper program beside toolhost starts the command", withProgram, sandbox.HelperName},
		{"toolhost alone starts it itself", alone, "toolhost"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := e2e.NewProject(t)
			e.Bin = tt.bin
			// The temporary directory inside the project: /tmp, which
			// holds the file outside, is then not writable.
			e.Env = append(e.Env, "TMPDIR="+filepath.Join(e.Dir, "tmp"))
			if err := os.MkdirAll(filepath.Join(e.Dir, "tmp"), 0o755); err != nil {
				t.Fatal(err)
			}
			e.Write("toolhost.json", `{"permission": {"bash": "allow", "batch": "allow"}, "experimental": {"batch_tool": true}}`)
			outside := filepath.Join(t.TempDir(), "x")
			// The parent's name (its comm, 15 bytes at most), then, in a
			// script, where the permission rules cannot see the
			// write outside: the kernel must refuse it.
			e.Write("probe.sh", `cat /proc/$PPID/comm; echo in > in.txt && echo wrote; (echo x > `+outside+`) 2>/dev/null || echo refused`)
			probe := map[string]string{"command": "sh probe.sh", "description": "probe"}
			cmd, _ := json.Marshal(probe)
			batch, _ := json.Marshal(map[string]any{"tool_calls": []any{map[string]any{"tool": "bash", "parameters": probe}}})
			calls := []struct{ tool, args, parent string }{
				{"bash", string(cmd), tt.parent},  // no plan kept yet: no helper prestarted, a zygote
				{"bash", string(cmd), "toolhost"}, // the prestarted one-shot helper became the command
				{"batch", string(batch), tt.parent},
			}
			if sandbox.ForksCommands() {
				// toolhost forks every command itself, program or not.
				for i := range calls {
					calls[i].parent = "toolhost"
				}
			}
			for _, call := range calls {
				out, stderr, code := e.Run("", "call", call.tool, call.args)
				if code != 0 {
					t.Fatalf("call %s: exit %d: %s\n%s", call.tool, code, stderr, out)
				}
				if !strings.Contains(out, call.parent[:min(len(call.parent), 15)]+"\nwrote\nrefused") {
					t.Errorf("call %s: output %q: want the command's parent %s, the write inside done and the one outside refused", call.tool, out, call.parent)
				}
				if _, err := os.Stat(outside); err == nil {
					t.Fatalf("call %s: the command wrote outside the project", call.tool)
				}
			}
			// doctor says which confines the commands.
			out, stderr, code := e.Run("", "doctor", "--json")
			var rep struct {
				Sandbox struct {
					Helper        string `json:"helper"`
					HelperProblem string `json:"helper_problem"`
					Forked        bool   `json:"forked"`
				} `json:"sandbox"`
			}
			if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 0 {
				t.Fatalf("doctor --json: exit %d, %v: %s", code, err, stderr)
			}
			if sandbox.ForksCommands() {
				if !rep.Sandbox.Forked || rep.Sandbox.Helper != "" || rep.Sandbox.HelperProblem != "" {
					t.Errorf("doctor reports helper %q (%q), forked %v: want forked", rep.Sandbox.Helper, rep.Sandbox.HelperProblem, rep.Sandbox.Forked)
				}
				return
			}
			if tt.parent == sandbox.HelperName && filepath.Base(rep.Sandbox.Helper) != sandbox.HelperName ||
				tt.parent != sandbox.HelperName && (rep.Sandbox.Helper != "" || !strings.Contains(rep.Sandbox.HelperProblem, "no "+sandbox.HelperName)) {
				t.Errorf("doctor reports helper %q (%q)", rep.Sandbox.Helper, rep.Sandbox.HelperProblem)
			}
		})
	}
}

// TestAKeptSandboxPlanHidesACredentialCreatedAfterIt: `toolhost call
// bash` keeps its sandbox plan for the next process; a credential created
// in the home directory since must be hidden from the next command all the
// same (the plan is made again: the home directory changed). Here the
// new credential is a link to a folder elsewhere, which a stale plan
// would leave readable.
func TestAKeptSandboxPlanHidesACredentialCreatedAfterIt(t *testing.T) {
	t.Parallel()
	if abi, err := sandbox.Available(); err != nil || abi < 1 {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the sandbox needs Landlock: %v", err)
		}
		t.Skipf("the sandbox needs Landlock: %v", err)
	}
	// Outside the shared /tmp: the plan carves the directories on the
	// way to the home, and other tests change /tmp's entries all the
	// time, which rightly makes a kept plan stale.
	root, err := os.MkdirTemp("/var/tmp", "toolhost-e2e-kept")
	if err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	e := &e2e.Project{T: t, Bin: e2e.Binary(t), Home: filepath.Join(root, "home"), Dir: filepath.Join(root, "project")}
	for _, d := range []string{e.Home, filepath.Join(e.Dir, ".git"), filepath.Join(e.Dir, "tmp")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	e.Env = append(e.Env, "TMPDIR="+filepath.Join(e.Dir, "tmp"))
	e.Write("toolhost.json", `{"permission": {"bash": "allow"}}`)
	// In a script: the permission rules cannot see what it reads, the
	// kernel must refuse it.
	e.Write("probe.sh", `cat "$HOME/.aws/credentials" 2>/dev/null || echo refused`)
	cmd, _ := json.Marshal(map[string]string{"command": "sh probe.sh", "description": "probe"})
	elsewhere := t.TempDir()
	if err := os.WriteFile(filepath.Join(elsewhere, "credentials"), []byte("secret of aws\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	run := func() string {
		out, stderr, code := e.Run("", "call", "bash", string(cmd))
		if code != 0 {
			t.Fatalf("exit %d: %s\n%s", code, stderr, out)
		}
		return out
	}
	if out := run(); !strings.Contains(out, "refused") {
		t.Fatalf("output %q: the credential does not exist yet", out)
	}
	kept, _ := filepath.Glob(filepath.Join(e.Home, ".cache", "toolhost", "sandbox-plans", "*.plan"))
	if len(kept) == 0 {
		t.Fatal("no sandbox plan was kept for the next process")
	}
	// Nothing changed: the next process uses it as it is (a plan that
	// named something of the process that made it, such as /proc/self's
	// target, would be made and kept again by every call). The plan
	// carves the shared temporary directory, which other programs change
	// now and then: a few tries.
	reused := false
	for try := 0; try < 4 && !reused; try++ {
		before, err := os.Stat(kept[0])
		if err != nil {
			t.Fatal(err)
		}
		run()
		after, err := os.Stat(kept[0])
		reused = err == nil && os.SameFile(before, after)
	}
	if !reused {
		t.Error("the kept plan was made again by each next process though nothing it was made from changed")
	}
	// ~/.aws made a link to credentials kept elsewhere, in a folder the
	// first plan lets commands read: only a plan made again resolves the
	// link and hides where it leads.
	if err := os.Symlink(elsewhere, filepath.Join(e.Home, ".aws")); err != nil {
		t.Fatal(err)
	}
	if out := run(); strings.Contains(out, "secret of aws") || !strings.Contains(out, "refused") {
		t.Errorf("output %q: a credential created after the kept plan was readable", out)
	}
}
