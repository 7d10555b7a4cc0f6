package config

import (
	"path/filepath"
	"strings"
)

// Sandbox configures the kernel sandbox bash commands run under. Where the
// kernel supports Linux Landlock, a command may write only to the project
// (worktree and working directory), the temporary directory, the toolchain
// caches (SandboxCaches), the directories external_directory rules allow,
// and Writable. It may read everywhere except the credential locations
// (sandbox.Credentials: ~/.ssh's keys, ~/.aws, keyrings, browser profiles
// ...), unless Readable names them; and when external_directory denies
// directories outside the project, only the project, the system and
// toolchain directories, what external_directory allows and Readable.
// toolhost's own data and cache directories are never writable. Where the
// kernel lacks Landlock, toolhost warns once at start and the permission
// rules alone apply. A project's own config sets it only once the project
// is trusted (internal/confine/trust): until then the user's config alone decides
// it.
type Sandbox struct {
	// Enabled runs bash under the sandbox where the kernel supports it.
	// Default true; false runs commands under the permission rules alone.
	Enabled *bool `json:"enabled,omitempty"`
	// Writable lists more directories (or files) commands may write
	// under. Relative paths resolve against the project root; "~/" is the
	// home directory. Paths that do not exist are skipped.
	Writable []string `json:"writable,omitempty"`
	// Readable lists more directories (or files) commands may read when
	// external_directory denies reading outside the project, and grants
	// credential locations by name ("~/.ssh", "~/.ssh/id_deploy",
	// "~/.aws"): naming a directory above one ("~") does not. Resolved as
	// Writable is.
	Readable []string `json:"readable,omitempty"`
	// Network false also refuses TCP connect and bind, sockets of other
	// families and protocols (UDP, MPTCP, raw, ...) and abstract UNIX
	// sockets of other programs (kernel 6.12+, Landlock ABI 6, on x86_64
	// or arm64; elsewhere every command is refused rather than run with
	// the network open). UNIX sockets by path stay open. Default true.
	Network *bool `json:"network,omitempty"`
}

// On reports whether the sandbox is enabled (the default).
func (s Sandbox) On() bool { return s.Enabled == nil || *s.Enabled }

// NetworkOn reports whether commands may use TCP (the default).
func (s Sandbox) NetworkOn() bool { return s.Network == nil || *s.Network }

// SandboxCaches returns the toolchain cache directories bash commands may
// write under by default, so builds and package installs work inside the
// sandbox: $XDG_CACHE_HOME (else ~/.cache; GOCACHE and pip's cache live
// there by default), $GOCACHE, $GOMODCACHE (else the first $GOPATH entry,
// else ~/go, then /pkg/mod, as the go command defaults it), npm's cache
// ($npm_config_cache, else ~/.npm), and Cargo's registry and git checkouts
// ($CARGO_HOME, else ~/.cargo). Computed from the environment without
// running any toolchain; env reads a variable, home is the home directory
// ("" skips the entries under it). Directories that do not exist are
// skipped by the sandbox, not here.
func SandboxCaches(env func(string) string, home string) []string {
	var out []string
	add := func(p string) {
		if p != "" && filepath.IsAbs(p) {
			out = append(out, filepath.Clean(p))
		}
	}
	orHome := func(v string, rel ...string) string {
		if v != "" {
			return v
		}
		if home == "" {
			return ""
		}
		return filepath.Join(append([]string{home}, rel...)...)
	}
	add(orHome(env("XDG_CACHE_HOME"), ".cache"))
	add(env("GOCACHE"))
	if m := env("GOMODCACHE"); m != "" {
		add(m)
	} else if gp, _, _ := strings.Cut(env("GOPATH"), string(filepath.ListSeparator)); gp != "" {
		add(filepath.Join(gp, "pkg", "mod"))
	} else if home != "" {
		add(filepath.Join(home, "go", "pkg", "mod"))
	}
	add(orHome(env("npm_config_cache"), ".npm"))
	if cargo := orHome(env("CARGO_HOME"), ".cargo"); cargo != "" {
		add(filepath.Join(cargo, "registry"))
		add(filepath.Join(cargo, "git"))
	}
	return out
}
