package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/toolhost/toolhost/internal/confine/fspath"
)

// Secret is a location commands may neither read nor write unless a
// person grants it by name.
type Secret struct {
	// Path is absolute.
	Path string `json:"path"`
	// Except are the names of entries of the directory Path that stay
	// readable (globs: "*.pub"): ~/.ssh's known_hosts and config, which
	// ssh needs to reach a host with keys from an agent. Every other
	// entry, including one created later, is hidden.
	Except []string `json:"except,omitempty"`
	// Grant is how Path is named in "sandbox": {"readable": [...]}.
	Grant string `json:"grant"`
}

// Credential is one entry of Credentials: a path relative to the home
// directory.
type Credential struct {
	Path   string
	Except []string
}

// Credentials are the places programs keep secrets in a home directory:
// keys, tokens, keyrings, browser profiles, cloud and registry logins.
// Commands may not read them (nor write them) whatever the permission
// rules say, unless sandbox.readable names them. This is the one list;
// add a location here.
var Credentials = []Credential{
	{Path: ".ssh", Except: []string{"known_hosts", "known_hosts2", "known_hosts.d", "config", "config.d", "*.pub"}},
	{Path: ".gnupg"},
	{Path: ".aws"},
	{Path: ".azure"},
	{Path: ".config/gcloud"},
	{Path: ".oci"},
	{Path: ".kube"},
	{Path: ".docker/config.json"},
	{Path: ".config/containers/auth.json"},
	{Path: ".netrc"},
	{Path: ".git-credentials"},
	{Path: ".config/git/credentials"},
	{Path: ".config/gh"},
	{Path: ".config/hub"},
	{Path: ".config/glab-cli"},
	{Path: ".npmrc"},
	{Path: ".yarnrc.yml"},
	{Path: ".pypirc"},
	{Path: ".config/pip/pip.conf"},
	{Path: ".cargo/credentials"},
	{Path: ".cargo/credentials.toml"},
	{Path: ".gem/credentials"},
	{Path: ".m2/settings.xml"},
	{Path: ".m2/settings-security.xml"},
	{Path: ".gradle/gradle.properties"},
	{Path: ".terraform.d/credentials.tfrc.json"},
	{Path: ".vault-token"},
	{Path: ".password-store"},
	{Path: ".local/share/keyrings"},
	{Path: ".local/share/kwalletd"},
	{Path: ".pki"},
	{Path: ".mozilla"},
	{Path: ".thunderbird"},
	{Path: ".config/google-chrome"},
	{Path: ".config/chromium"},
	{Path: ".config/BraveSoftware"},
	{Path: ".config/microsoft-edge"},
	{Path: ".config/vivaldi"},
	{Path: ".config/opera"},
	{Path: ".local/share/opencode/auth.json"},
	{Path: ".config/github-copilot"},
	{Path: ".claude/.credentials.json"},
	{Path: ".codex/auth.json"},
	// toolhost's permission inbox token: a command that read it could
	// answer its own permission question (internal/serve/inbox).
	{Path: ".local/share/toolhost/inbox"},
	{Path: ".huggingface/token"},
	{Path: ".nuget/NuGet/NuGet.Config"},
	{Path: ".config/NuGet/NuGet.Config"},
	{Path: ".config/op"},
	{Path: ".config/rclone/rclone.conf"},
	{Path: ".s3cfg"},
	{Path: ".boto"},
	{Path: ".pgpass"},
	{Path: ".my.cnf"},
	{Path: ".bash_history"},
	{Path: ".zsh_history"},
	{Path: ".python_history"},
	{Path: ".psql_history"},
	{Path: ".mysql_history"},
}

// HomeSecrets resolves Credentials against home, leaving out those a
// grant names: a grant equal to the location, or inside it (naming
// ~/.ssh/id_deploy leaves the rest of ~/.ssh hidden, and id_deploy
// readable). grants are absolute, "~/" already expanded.
func HomeSecrets(home string, grants []string) []Secret {
	if home == "" || !filepath.IsAbs(home) {
		return nil
	}
	var out []Secret
	for _, c := range Credentials {
		abs := filepath.Join(home, c.Path)
		if slices.Contains(grants, abs) {
			continue // granted by name; a directory above it grants nothing of it
		}
		s := Secret{Path: abs, Except: c.Except, Grant: "~/" + c.Path}
		for _, g := range grants {
			if within(abs, g) && g != abs {
				// A file inside: readable by name; the rest stays hidden.
				if rel, err := filepath.Rel(abs, g); err == nil && !strings.Contains(rel, string(filepath.Separator)) {
					s.Except = append(slices.Clone(s.Except), rel)
				}
			}
		}
		out = append(out, s)
	}
	return out
}

// expandHidden resolves the secrets to the paths Plan carves out: the
// location itself, or, for a directory with exceptions, each of its
// entries but those. A directory that cannot be listed is hidden whole.
func expandHidden(secrets []Secret) []HiddenPath {
	var out []HiddenPath
	dirs := realDirs{}
	for _, s := range secrets {
		if !filepath.IsAbs(s.Path) {
			continue
		}
		real := dirs.realPath(s.Path)
		if len(s.Except) == 0 {
			out = append(out, HiddenPath{Path: real, Grant: s.Grant})
			continue
		}
		entries, err := os.ReadDir(real)
		if err != nil {
			// Missing or unlistable: hidden whole, so that one created
			// later is not readable before the plan is made again.
			out = append(out, HiddenPath{Path: real, Grant: s.Grant})
			continue
		}
		for _, e := range entries {
			if slices.ContainsFunc(s.Except, func(g string) bool { ok, _ := filepath.Match(g, e.Name()); return ok }) {
				continue
			}
			out = append(out, HiddenPath{Path: dirs.realPath(filepath.Join(real, e.Name())), Grant: s.Grant + "/" + e.Name()})
		}
	}
	return out
}

// realDirs resolves many paths in few directories (a hundred credential
// locations in the home directory and a few beneath it): each directory
// once, then one lstat for the last name of each path, where realPath
// would walk every component of every path again (and twice for one that
// does not exist).
type realDirs map[string]string

// realPath is realPath(p).
func (d realDirs) realPath(p string) string {
	p = filepath.Clean(p)
	dir, name := filepath.Split(p)
	if name == "" || !filepath.IsAbs(p) {
		return realPath(p)
	}
	dir = filepath.Clean(dir)
	rd, ok := d[dir]
	if !ok {
		rd = realPath(dir)
		d[dir] = rd
	}
	if real, ok := fspath.RealBelow(rd, name); ok {
		return real
	}
	return realPath(p) // a link: resolved with every link it leads through
}

// credentialEnv are the environment variables that move a credential
// location away from its default: the location is hidden where the
// variable points, too. file, when set, is the credential file inside the
// directory the variable names.
var credentialEnv = []struct{ name, file string }{
	{"GNUPGHOME", ""}, {"AWS_SHARED_CREDENTIALS_FILE", ""}, {"AWS_CONFIG_FILE", ""}, {"KUBECONFIG", ""},
	{"DOCKER_CONFIG", "config.json"}, {"GH_CONFIG_DIR", ""}, {"CLOUDSDK_CONFIG", ""}, {"AZURE_CONFIG_DIR", ""},
	{"PASSWORD_STORE_DIR", ""}, {"NETRC", ""}, {"CARGO_HOME", "credentials"}, {"CARGO_HOME", "credentials.toml"},
	{"VAULT_CONFIG_PATH", ""}, {"GOOGLE_APPLICATION_CREDENTIALS", ""},
	// podman's and skopeo's registry logins live in the runtime directory.
	{"XDG_RUNTIME_DIR", "containers/auth.json"}, {"REGISTRY_AUTH_FILE", ""}, {"HF_TOKEN_PATH", ""},
}

// EnvSecrets are the credential locations the environment moves (see
// credentialEnv), and the Credentials under ~/.config and ~/.local/share
// again beneath $XDG_CONFIG_HOME and $XDG_DATA_HOME when those are set
// elsewhere. grants unhide by name, as in HomeSecrets.
func EnvSecrets(env func(string) string, home string, grants []string) []Secret {
	var out []Secret
	add := func(abs, grant string, except []string) {
		abs = filepath.Clean(abs)
		if !filepath.IsAbs(abs) || slices.Contains(grants, abs) || home != "" && abs == filepath.Clean(home) {
			return
		}
		out = append(out, Secret{Path: abs, Grant: grant, Except: except})
	}
	for _, c := range credentialEnv {
		for _, v := range filepath.SplitList(env(c.name)) {
			if v == "" {
				continue
			}
			if c.file != "" {
				v = filepath.Join(v, c.file)
			}
			add(v, v, nil)
		}
	}
	for _, x := range []struct{ name, prefix string }{{"XDG_CONFIG_HOME", ".config/"}, {"XDG_DATA_HOME", ".local/share/"}} {
		base := env(x.name)
		if base == "" || !filepath.IsAbs(base) || home != "" && filepath.Clean(base) == filepath.Join(home, strings.TrimSuffix(x.prefix, "/")) {
			continue
		}
		for _, c := range Credentials {
			if rest, ok := strings.CutPrefix(c.Path, x.prefix); ok {
				p := filepath.Join(base, rest)
				add(p, p, c.Except)
			}
		}
	}
	return out
}

// rawDevices are the character devices that read the machine's memory
// whole; RawDevices adds every block device (a disk, a partition, a loop
// or mapper device) found in /dev.
var rawDevices = []string{"/dev/mem", "/dev/kmem", "/dev/port", "/dev/kcore"}

// RawDevices are the device files under /dev through which a command that
// may open them (root, or the disk group) would read every file on a disk
// or every process's memory, past every rule Landlock keeps on paths:
// they are hidden as credential locations are, and granted the same way,
// by name in sandbox.readable.
func RawDevices(grants []string) []Secret {
	var out []Secret
	add := func(p string) {
		if !slices.Contains(grants, p) {
			out = append(out, Secret{Path: p, Grant: p})
		}
	}
	for _, p := range rawDevices {
		if _, err := os.Lstat(p); err == nil {
			add(p)
		}
	}
	for _, dir := range []string{"/dev", "/dev/mapper"} {
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if e.Type()&os.ModeDevice != 0 && e.Type()&os.ModeCharDevice == 0 {
				add(filepath.Join(dir, e.Name()))
			}
		}
	}
	return out
}
