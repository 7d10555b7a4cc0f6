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
// command is confined either way, by the program when there is one.
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
			e.Write("toolhost.json", `{"permission": {"bash": "allow"}}`)
			outside := filepath.Join(t.TempDir(), "x")
			// The parent's name (its comm, 15 bytes at most), then, in a
			// script, where the permission rules cannot see the
			// write outside: the kernel must refuse it.
			e.Write("probe.sh", `cat /proc/$PPID/comm; echo in > in.txt && echo wrote; (echo x > `+outside+`) 2>/dev/null || echo refused`)
			cmd, _ := json.Marshal(map[string]string{"command": "sh probe.sh", "description": "probe"})
			out, stderr, code := e.Run("", "call", "bash", string(cmd))
			if code != 0 {
				t.Fatalf("exit %d: %s\n%s", code, stderr, out)
			}
			lines := strings.Split(strings.TrimSpace(out), "\n")
			if len(lines) < 3 || lines[0] != tt.parent[:min(len(tt.parent), 15)] || lines[1] != "wrote" || lines[2] != "refused" {
				t.Errorf("output %q: want the command's parent %s, the write inside done and the one outside refused", out, tt.parent)
			}
			if _, err := os.Stat(outside); err == nil {
				t.Error("the command wrote outside the project")
			}
			// doctor says which confines the commands.
			out, stderr, code = e.Run("", "doctor", "--json")
			var rep struct {
				Sandbox struct {
					Helper        string `json:"helper"`
					HelperProblem string `json:"helper_problem"`
				} `json:"sandbox"`
			}
			if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 0 {
				t.Fatalf("doctor --json: exit %d, %v: %s", code, err, stderr)
			}
			if tt.parent == sandbox.HelperName && filepath.Base(rep.Sandbox.Helper) != sandbox.HelperName ||
				tt.parent != sandbox.HelperName && (rep.Sandbox.Helper != "" || !strings.Contains(rep.Sandbox.HelperProblem, "no "+sandbox.HelperName)) {
				t.Errorf("doctor reports helper %q (%q)", rep.Sandbox.Helper, rep.Sandbox.HelperProblem)
			}
		})
	}
}
