//go:build linux

package builtins

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/runtime/config"
	"github.com/toolhost/toolhost/runtime/permission"
)

// denyOutside is `"external_directory": "deny"`.
var denyOutside = permission.Ruleset{{Permission: "external_directory", Pattern: "*", Action: permission.Deny}}

func TestBashSandboxConfinesReadsWhenExternalDirectoryIsDenied(t *testing.T) {
	requireLandlock(t, 1)
	t.Parallel()
	_, project := bashProject(t)
	other := outsideDir(t)
	if err := os.WriteFile(filepath.Join(other, "secret"), []byte("secret of other\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(project, "mine"), []byte("plain\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		command string
		rules   permission.Ruleset
		cfg     *config.Config
		wantOK  bool
		note    string
	}{
		{"a hidden read outside the project is refused, naming the grant", "cat " + hidden(other+"/secret"), denyOutside, nil, false, `"sandbox": {"readable": ["` + other + `"]}`},
		{"a hidden recursive grep outside finds nothing", "grep -r secret " + hidden(other), denyOutside, nil, false, `"readable"`},
		{"the project is readable", "cat mine", denyOutside, nil, true, ""},
		{"system directories are readable", "cat /etc/passwd > /dev/null && ls /usr/bin | grep -q sh", denyOutside, nil, true, ""},
		{"sandbox.readable grants a directory", "cat " + hidden(other+"/secret"), denyOutside, &config.Config{Sandbox: config.Sandbox{Readable: []string{other}}}, true, ""},
		{"without a deny, reads outside stay open", "cat " + hidden(other+"/secret"), nil, nil, true, ""},
	}
	type row = struct {
		name    string
		command string
		rules   permission.Ruleset
		cfg     *config.Config
		wantOK  bool
		note    string
	}
	if _, err := exec.LookPath("git"); err == nil {
		tests = append(tests, row{"git works in the project", "git init -q . && git -c user.name=t -c user.email=t@t commit -q --allow-empty -m x && git log --oneline | grep -q x", denyOutside, nil, true, ""})
	}
	if goBin, err := exec.LookPath("go"); err == nil {
		tests = append(tests, row{"the Go toolchain on PATH runs", goBin + " version", denyOutside, nil, true, ""})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tc := bashContext(project, &bashProbe{}, tt.cfg)
			tc.Rules = tt.rules
			res, err := runBashTool(t, context.Background(), tc, bashParams{Command: tt.command, Description: "read"})
			if err != nil {
				t.Fatal(err)
			}
			if ok := res.Metadata["exit"] == 0; ok != tt.wantOK {
				t.Errorf("exit %v, want success=%v; output:\n%s", res.Metadata["exit"], tt.wantOK, res.Output)
			}
			if !tt.wantOK && strings.Contains(res.Output, "secret of") {
				t.Errorf("refused content reached the output:\n%s", res.Output)
			}
			if tt.note != "" && !strings.Contains(res.Output, tt.note) {
				t.Errorf("output lacks the note %q:\n%s", tt.note, res.Output)
			}
		})
	}
}

// TestBashSandboxHidesCredentials runs under a fake home directory: not
// parallel, as it sets HOME.
func TestBashSandboxHidesCredentials(t *testing.T) {
	requireLandlock(t, 1)
	home := filepath.Join(outsideDir(t), "home")
	for p, content := range map[string]string{".ssh/id_ed25519": "secret key", ".ssh/known_hosts": "host", ".aws/credentials": "secret aws", "notes": "plain"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(home, p)), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(home, p), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", home)
	_, project := bashProject(t)
	tests := []struct {
		name    string
		command string
		rules   permission.Ruleset
		cfg     *config.Config
		wantOK  bool
		note    string
	}{
		{"a private key is refused, naming the grant", "dd if=" + hidden(home+"/.ssh/id_ed25519"), nil, nil, false, `"sandbox": {"readable": ["~/.ssh/id_ed25519"]}`},
		{"cloud credentials are refused even when every directory is allowed", "cat " + hidden(home+"/.aws/credentials"), permission.Ruleset{{Permission: "external_directory", Pattern: "*", Action: permission.Allow}}, nil, false, `"readable": ["~/.aws"]`},
		{"known_hosts is readable under a deny", "cat " + hidden(home+"/.ssh/known_hosts"), denyOutside, nil, true, ""},
		{"the rest of home is readable", "cat " + hidden(home+"/notes"), nil, nil, true, ""},
		{"a credential granted by name is readable", "cat " + hidden(home+"/.ssh/id_ed25519"), nil, &config.Config{Sandbox: config.Sandbox{Readable: []string{"~/.ssh"}}}, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tc := bashContext(project, &bashProbe{}, tt.cfg)
			tc.Rules = tt.rules
			res, err := runBashTool(t, context.Background(), tc, bashParams{Command: tt.command, Description: "read"})
			if err != nil {
				t.Fatal(err)
			}
			if ok := res.Metadata["exit"] == 0; ok != tt.wantOK {
				t.Errorf("exit %v, want success=%v; output:\n%s", res.Metadata["exit"], tt.wantOK, res.Output)
			}
			if !tt.wantOK && strings.Contains(res.Output, "secret") {
				t.Errorf("the credential reached the output:\n%s", res.Output)
			}
			if tt.note != "" && !strings.Contains(res.Output, tt.note) {
				t.Errorf("output lacks the note %q:\n%s", tt.note, res.Output)
			}
		})
	}
}

// TestBashSandboxKeepsAnSSHAgentReachable: with the network off and reads
// confined, ssh still reaches its agent by its socket's path and reads
// known_hosts; a real ssh-add lists the agent's keys.
func TestBashSandboxKeepsAnSSHAgentReachable(t *testing.T) {
	requireLandlock(t, 6)
	t.Parallel()
	agent, err := exec.LookPath("ssh-agent")
	if err == nil {
		_, err = exec.LookPath("ssh-add")
	}
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("ssh-agent and ssh-add are needed with CI=true (Debian's openssh-client): %v", err)
		}
		t.Skipf("ssh-agent and ssh-add are not installed (Debian's openssh-client): %v", err)
	}
	sock := filepath.Join(t.TempDir(), "agent.sock")
	cmd := exec.Command(agent, "-D", "-a", sock)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for i := 0; i < 200; i++ {
		if _, err := os.Stat(sock); err == nil {
			break
		}
		exec.Command("sleep", "0.01").Run()
	}
	_, project := bashProject(t)
	off := false
	tc := bashContext(project, &bashProbe{}, &config.Config{Sandbox: config.Sandbox{Network: &off}})
	tc.Rules = denyOutside
	res, err := runBashTool(t, context.Background(), tc, bashParams{Command: "SSH_AUTH_SOCK=" + sock + " ssh-add -l; echo status=$?", Description: "agent"})
	if err != nil {
		t.Fatal(err)
	}
	// 1: the agent answered and holds no key; 2: it could not be reached.
	if !strings.Contains(res.Output, "status=0") && !strings.Contains(res.Output, "status=1") {
		t.Errorf("ssh-add could not reach the agent (pid %s):\n%s", strconv.Itoa(cmd.Process.Pid), res.Output)
	}
}

func TestBashSandboxPolicyReads(t *testing.T) {
	t.Parallel()
	env := func(k string) string {
		return map[string]string{"HOME": "/h", "PATH": "/usr/bin:/h/.local/bin:/h:/", "GOPATH": "/gp", "XDG_RUNTIME_DIR": "/run/user/7"}[k]
	}
	tests := []struct {
		name     string
		rules    permission.Ruleset
		readable []string
		confined bool
		roots    []string // some of the readable roots, when confined
		notRoots []string
		hidden   []string // some hidden locations
		shown    []string // locations not hidden
	}{
		{name: "without a deny reads are not confined, credentials hidden", hidden: []string{"/h/.ssh", "/h/.aws", "/h/.netrc"}},
		{name: "registry logins in the runtime directory and model hub tokens are hidden", hidden: []string{"/run/user/7/containers/auth.json", "/h/.huggingface/token", "/h/.nuget/NuGet/NuGet.Config"}},
		{name: "allowing every directory still hides credentials", rules: permission.Ruleset{{Permission: "external_directory", Pattern: "*", Action: permission.Allow}}, hidden: []string{"/h/.ssh", "/h/.config/gh"}},
		{
			name: "external_directory deny confines reads to system dirs, toolchains and PATH", rules: denyOutside, confined: true,
			roots: []string{"/usr", "/etc", "/h/go", "/h/.cargo", "/h/.cache", "/gp", "/h/.local/bin"}, notRoots: []string{"/h", "/"},
		},
		{name: "a deny with specific allows still confines", rules: append(slices.Clone(denyOutside), permission.Rule{Permission: "external_directory", Pattern: "/srv/*", Action: permission.Allow}), confined: true, roots: []string{"/usr"}},
		{name: "sandbox.readable is a root and grants credentials by name", rules: denyOutside, readable: []string{"~/.ssh", "/data"}, confined: true, roots: []string{"/h/.ssh", "/data"}, shown: []string{"/h/.ssh"}, hidden: []string{"/h/.aws"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tc := bashContext("/p", &bashProbe{}, nil)
			tc.Rules = tt.rules
			p := BashSandboxPolicy(tc, &config.Config{Sandbox: config.Sandbox{Readable: tt.readable}}, env)
			if p.ConfineReads != tt.confined {
				t.Errorf("ConfineReads = %v, want %v", p.ConfineReads, tt.confined)
			}
			for _, r := range tt.roots {
				if !slices.Contains(p.Readable, r) {
					t.Errorf("%s is not a readable root: %v", r, p.Readable)
				}
			}
			for _, r := range tt.notRoots {
				if slices.Contains(p.Readable, r) {
					t.Errorf("%s is a readable root", r)
				}
			}
			var hidden []string
			for _, s := range p.Hidden {
				hidden = append(hidden, s.Path)
			}
			for _, h := range tt.hidden {
				if !slices.Contains(hidden, h) {
					t.Errorf("%s is not hidden: %v", h, hidden)
				}
			}
			for _, h := range tt.shown {
				if slices.Contains(hidden, h) {
					t.Errorf("%s is hidden although granted by name", h)
				}
			}
		})
	}
}

func TestBashSandboxHidesTheAccountsCredentialsWhenHOMEIsElsewhere(t *testing.T) {
	t.Parallel()
	account := passwdHome()
	if !filepath.IsAbs(account) || account == "/" {
		t.Skipf("this user's home directory (%q) cannot be looked up", account)
	}
	for _, home := range []string{"/", t.TempDir()} {
		env := func(k string) string { return map[string]string{"HOME": home}[k] }
		p := BashSandboxPolicy(bashContext("/p", &bashProbe{}, nil), &config.Config{}, env)
		var hidden []string
		for _, s := range p.Hidden {
			hidden = append(hidden, s.Path)
		}
		for _, want := range []string{filepath.Join(account, ".ssh"), filepath.Join(account, ".aws"), filepath.Join(home, ".ssh")} {
			if !slices.Contains(hidden, want) {
				t.Errorf("HOME=%s: %s is not hidden: %v", home, want, hidden)
			}
		}
	}
}
