package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// ordinary are fakeHome's files that hold no secret.
var ordinary = []string{".ssh/id_ed25519.pub", ".ssh/known_hosts", ".ssh/config", ".config/nvim/init.lua", "notes.txt", "src/app/main.go", ".gitconfig"}

// fakeHome makes a home directory with credentials and ordinary files:
// paths relative to it, a trailing "/" making a directory.
func fakeHome(t *testing.T) string {
	t.Helper()
	home := filepath.Join(t.TempDir(), "home")
	for _, p := range []string{
		".ssh/id_ed25519", ".ssh/id_rsa", ".ssh/id_ed25519.pub", ".ssh/known_hosts", ".ssh/config",
		".aws/credentials", ".config/gh/hosts.yml", ".config/nvim/init.lua", ".netrc",
		".local/share/keyrings/login.keyring", ".local/share/fonts/", ".docker/config.json", ".docker/contexts/",
		"notes.txt", "src/app/main.go", ".gitconfig",
	} {
		full := filepath.Join(home, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if p[len(p)-1] == '/' {
			if err := os.MkdirAll(full, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		content := "secret of " + p + "\n"
		if slices.Contains(ordinary, p) {
			content = "plain " + p + "\n"
		}
		if err := os.WriteFile(full, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return home
}

func TestReadPlan(t *testing.T) {
	t.Parallel()
	home := fakeHome(t)
	h := func(p string) string { return filepath.Join(home, p) }
	outside := t.TempDir()
	tests := []struct {
		name       string
		policy     Policy
		readable   []string
		unreadable []string
		carved     []string // a subset of the carved directories
	}{
		{
			name:       "credentials are hidden while everything else stays readable",
			policy:     Policy{Hidden: HomeSecrets(home, nil)},
			readable:   []string{"/usr", outside, h("notes.txt"), h(".config/nvim/init.lua"), h(".local/share/fonts"), h(".docker/contexts"), h(".gitconfig")},
			unreadable: []string{h(".aws/credentials"), h(".config/gh/hosts.yml"), h(".netrc"), h(".local/share/keyrings/login.keyring"), h(".docker/config.json"), h(".ssh/id_ed25519"), h(".ssh/id_rsa"), h(".ssh/new_key")},
			carved:     []string{"/", home, h(".config"), h(".local/share"), h(".docker")},
		},
		{
			name:       "ssh keeps its known hosts, config and public keys, which ssh needs to use an agent",
			policy:     Policy{Hidden: HomeSecrets(home, nil)},
			readable:   []string{h(".ssh/known_hosts"), h(".ssh/config"), h(".ssh/id_ed25519.pub")},
			unreadable: []string{h(".ssh/id_ed25519")},
			carved:     []string{h(".ssh")},
		},
		{
			name:       "a credential location granted by name is readable",
			policy:     Policy{Hidden: HomeSecrets(home, []string{h(".ssh"), h(".aws")})},
			readable:   []string{h(".ssh/id_ed25519"), h(".aws/credentials")},
			unreadable: []string{h(".netrc")},
		},
		{
			name:       "one key granted by name leaves the others hidden",
			policy:     Policy{Hidden: HomeSecrets(home, []string{h(".ssh/id_rsa")})},
			readable:   []string{h(".ssh/id_rsa"), h(".ssh/known_hosts")},
			unreadable: []string{h(".ssh/id_ed25519")},
		},
		{
			name:       "granting the home directory grants no credential in it",
			policy:     Policy{Hidden: HomeSecrets(home, []string{home})},
			readable:   []string{h("notes.txt")},
			unreadable: []string{h(".ssh/id_ed25519"), h(".aws/credentials")},
		},
		{
			name:       "confined reads reach the readable and writable roots only, credentials still hidden",
			policy:     Policy{ConfineReads: true, Readable: []string{"/usr", h(".ssh")}, Writable: []string{home}, Hidden: HomeSecrets(home, nil)},
			readable:   []string{"/usr/bin", h("src/app/main.go"), h(".ssh/known_hosts")},
			unreadable: []string{outside, "/root", h(".ssh/id_ed25519"), h(".aws/credentials")},
			carved:     []string{home, h(".ssh")},
		},
		{
			name:       "a root inside a hidden location grants nothing",
			policy:     Policy{ConfineReads: true, Readable: []string{h(".aws")}, Hidden: HomeSecrets(home, nil)},
			unreadable: []string{h(".aws/credentials")},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			pl := tt.policy.Plan()
			for _, p := range tt.readable {
				if !pl.AllowsRead(p) {
					t.Errorf("%s is not readable; grants %v", p, pl.Read.Grants)
				}
			}
			for _, p := range tt.unreadable {
				if pl.AllowsRead(p) {
					t.Errorf("%s is readable", p)
				}
			}
			for _, c := range tt.carved {
				if !slices.Contains(pl.Read.Carved, c) {
					t.Errorf("%s is not carved: %v", c, pl.Read.Carved)
				}
			}
		})
	}
}

func TestCredentialsAreNeverWritableEvenInAWritableRoot(t *testing.T) {
	t.Parallel()
	home := fakeHome(t)
	pl := Policy{Writable: []string{home}, Hidden: HomeSecrets(home, nil)}.Plan()
	for _, p := range []string{".ssh/id_ed25519", ".ssh/authorized_keys", ".aws/credentials", ".netrc", ".docker/config.json"} {
		if pl.Allows(filepath.Join(home, p)) {
			t.Errorf("%s is writable", p)
		}
	}
	if !pl.Allows(filepath.Join(home, "notes.txt")) || !pl.Allows(filepath.Join(home, "src/new")) {
		t.Error("the rest of the writable root is not writable")
	}
	// Renaming a credential directory to a name that is not hidden would
	// unhide it for the next command: the home directory is carved, so
	// its own entries cannot be renamed.
	if !slices.Contains(pl.Carved, home) {
		t.Errorf("the home directory is not carved for writes: %v", pl.Carved)
	}
}

func TestHiddenPathsNameTheGrant(t *testing.T) {
	t.Parallel()
	home := fakeHome(t)
	pl := Policy{Hidden: HomeSecrets(home, nil)}.Plan()
	for p, want := range map[string]string{
		".ssh/id_ed25519":       "~/.ssh/id_ed25519",
		".aws/credentials":      "~/.aws",
		".config/gh/hosts.yml":  "~/.config/gh",
		".docker/config.json":   "~/.docker/config.json",
		".local/share/keyrings": "~/.local/share/keyrings",
	} {
		h, ok := pl.HiddenAt(filepath.Join(home, p))
		if !ok || h.Grant != want {
			t.Errorf("HiddenAt(%s) = %+v, %v; want the grant %s", p, h, ok, want)
		}
	}
	if _, ok := pl.HiddenAt(filepath.Join(home, ".ssh/known_hosts")); ok {
		t.Error("known_hosts is hidden")
	}
}

func TestCachedPlanIsMadeAgainWhenACarvedDirectoryChanges(t *testing.T) {
	t.Parallel()
	home := fakeHome(t)
	p := Policy{Hidden: HomeSecrets(home, nil)}
	first := CachedPlan(p)
	if again := CachedPlan(p); !slices.Equal(again.Read.Grants, first.Read.Grants) {
		t.Fatal("an unchanged plan differs")
	}
	late := filepath.Join(home, "late.txt")
	if first.AllowsRead(late) {
		t.Fatal("a file created after the plan is readable by it")
	}
	if err := os.WriteFile(late, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if !CachedPlan(p).AllowsRead(late) {
		t.Error("the cached plan was not made again after the home directory changed")
	}
	// A new key in ~/.ssh is hidden as soon as it exists.
	key := filepath.Join(home, ".ssh", "id_new")
	if err := os.WriteFile(key, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if CachedPlan(p).AllowsRead(key) {
		t.Error("a key added to ~/.ssh is readable")
	}
}

func TestEnvSecretsFollowTheVariablesThatMoveCredentials(t *testing.T) {
	t.Parallel()
	env := map[string]string{
		"GNUPGHOME": "/keys/gnupg", "KUBECONFIG": "/k/a:/k/b", "DOCKER_CONFIG": "/d", "CARGO_HOME": "/c",
		"XDG_CONFIG_HOME": "/xdg/config", "XDG_DATA_HOME": "/h/.local/share",
	}
	got := map[string]bool{}
	for _, s := range EnvSecrets(func(k string) string { return env[k] }, "/h", []string{"/k/b"}) {
		got[s.Path] = true
	}
	for _, want := range []string{"/keys/gnupg", "/k/a", "/d/config.json", "/c/credentials.toml", "/xdg/config/gh", "/xdg/config/google-chrome"} {
		if !got[want] {
			t.Errorf("%s is not hidden: %v", want, got)
		}
	}
	for _, not := range []string{"/k/b", "/d", "/c", "/h/.local/share/keyrings"} {
		if got[not] {
			t.Errorf("%s is hidden (granted by name, a directory holding one, or already hidden by HomeSecrets)", not)
		}
	}
}
