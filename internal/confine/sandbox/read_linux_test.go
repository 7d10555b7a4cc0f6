//go:build linux

package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestCredentialsAreUnreadableUnderLandlock(t *testing.T) {
	requireLandlock(t, 1)
	t.Parallel()
	home := fakeHome(t)
	h := func(p string) string { return filepath.Join(home, p) }
	tests := []struct {
		name   string
		grants []string
		script string
		ok     bool
	}{
		{"a private ssh key is refused", nil, "cat " + h(".ssh/id_ed25519"), false},
		{"dd of a private ssh key is refused", nil, "dd if=" + h(".ssh/id_ed25519") + " of=/dev/null", false},
		{"cloud credentials are refused", nil, "cat " + h(".aws/credentials"), false},
		{"a recursive grep does not read credentials", nil, "grep -r secret " + h(".config"), false},
		{"a key copied elsewhere first is refused too", nil, "cp " + h(".ssh/id_rsa") + " /dev/stdout", false},
		{"known_hosts and ssh's config are readable", nil, "cat " + h(".ssh/known_hosts") + " " + h(".ssh/config"), true},
		{"~/.ssh can be listed", nil, "ls " + h(".ssh") + " | grep -q id_ed25519", true},
		{"the rest of the home directory is readable", nil, "cat " + h("notes.txt") + " " + h(".config/nvim/init.lua"), true},
		{"a credential granted by name is readable", []string{h(".ssh")}, "cat " + h(".ssh/id_ed25519"), true},
		{"a grant of home is not a grant of its credentials", []string{home}, "cat " + h(".netrc"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := Policy{Writable: Devices, Network: true, Hidden: HomeSecrets(home, tt.grants)}
			for _, byFork := range startWays() {
				out, err := confinedBy(t, byFork, p, tt.script)
				if (err == nil) != tt.ok {
					t.Errorf("%s, %s: err=%v, want success=%v\n%s", wayName(byFork), tt.script, err, tt.ok, out)
				}
				if !tt.ok && strings.Contains(out, "secret of") {
					t.Errorf("%s: the credential's content reached the output:\n%s", wayName(byFork), out)
				}
			}
		})
	}
}

func TestConfinedReadsReachOnlyTheReadableRoots(t *testing.T) {
	requireLandlock(t, 1)
	t.Parallel()
	home := fakeHome(t)
	project, other := filepath.Join(home, "src", "app"), t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "secret"), []byte("secret of other\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bin, err := exec.LookPath("sh")
	if err != nil {
		t.Skip(err)
	}
	bin, _ = filepath.EvalSymlinks(bin)
	p := Policy{
		ConfineReads: true,
		Readable:     append(append([]string(nil), SystemDirs[:len(SystemDirs)-1]...), filepath.Dir(bin), h(home, ".ssh")),
		Writable:     append([]string{project}, Devices...),
		Hidden:       HomeSecrets(home, nil),
		Network:      true,
	}
	// /tmp holds the fake home and the other directory here: leave it out.
	p.Readable = removeAll(p.Readable, "/tmp")
	for _, tt := range []struct {
		name, script string
		ok           bool
	}{
		{"the project is readable", "cat " + project + "/main.go", true},
		{"system directories are readable", "cat /etc/passwd > /dev/null && ls /usr/bin > /dev/null", true},
		{"a directory outside is refused", "cat " + other + "/secret", false},
		{"a recursive grep outside finds nothing", "cd " + project + " && grep -r secret " + rel(t, project, other), false},
		{"a sibling of the project in home is refused", "cat " + h(home, "notes.txt"), false},
		{"known_hosts stays readable for ssh", "cat " + h(home, ".ssh/known_hosts"), true},
		{"a private key stays refused", "cat " + h(home, ".ssh/id_ed25519"), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, byFork := range startWays() {
				out, err := confinedBy(t, byFork, p, tt.script)
				if (err == nil) != tt.ok {
					t.Errorf("%s, %s: err=%v, want success=%v\n%s", wayName(byFork), tt.script, err, tt.ok, out)
				}
				if !tt.ok && strings.Contains(out, "secret of") {
					t.Errorf("%s: refused content reached the output:\n%s", wayName(byFork), out)
				}
			}
		})
	}
}

func h(home, p string) string { return filepath.Join(home, p) }

func removeAll(s []string, v string) []string {
	var out []string
	for _, x := range s {
		if x != v {
			out = append(out, x)
		}
	}
	return out
}
