package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/toolhost/toolhost/internal/confine/fspath"
)

// SystemDirs are the directories every confined command may read: the
// programs, libraries and configuration of the system, the kernel's
// views (/proc, /sys, /dev), runtime state (/run: sockets and the
// resolver's files) and the temporary directory /tmp (the writable one:
// /var/tmp, shared and long-lived, is not). Missing ones are skipped.
var SystemDirs = []string{
	"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt",
	"/proc", "/sys", "/dev", "/run", "/tmp",
	"/var/lib/dpkg", "/var/lib/rpm", "/var/cache/fontconfig", "/nix", "/snap", "/gnu",
}

// homeToolchains are the directories under the home directory that
// toolchains and their version managers install into, and the per-user
// configuration programs read to work at all (git's and ssh's: ~/.ssh is
// carved down to known_hosts and config by Credentials).
var homeToolchains = []string{
	".cache", ".local/bin", ".local/lib", ".local/share/mise", ".local/share/pnpm", "bin",
	"go", "sdk", ".cargo", ".rustup", ".npm", ".nvm", ".volta", ".bun", ".deno", ".yarn", ".node-gyp",
	".pyenv", ".rbenv", ".asdf", ".sdkman", ".gradle", ".m2", ".gem", ".nuget", ".dotnet", ".ghcup", ".opam", ".elan",
	".gitconfig", ".config/git", ".ssh", ".gitignore", ".gitignore_global", ".editorconfig", ".inputrc",
}

// ReadRoots are the directories a confined command may read besides the
// project and the writable roots: SystemDirs, the toolchains under home,
// the toolchains the environment names (GOROOT, GOPATH, GOMODCACHE,
// GOCACHE, CARGO_HOME, RUSTUP_HOME, NVM_DIR, PYENV_ROOT, JAVA_HOME, ...),
// the Go root found from the go program on PATH, and the directories on
// PATH (one that holds the home directory, or is /, left out). env reads
// a variable.
func ReadRoots(env func(string) string, home string) []string {
	out := append([]string(nil), SystemDirs...)
	add := func(p string) {
		if p != "" && filepath.IsAbs(p) {
			p = filepath.Clean(p)
			if p == "/" || home != "" && within(p, home) {
				return // would open everything, or the whole home
			}
			out = append(out, p)
		}
	}
	if home != "" {
		for _, d := range homeToolchains {
			add(filepath.Join(home, d))
		}
	}
	for _, v := range []string{"GOROOT", "GOMODCACHE", "GOCACHE", "CARGO_HOME", "RUSTUP_HOME", "NVM_DIR", "PYENV_ROOT", "RBENV_ROOT", "JAVA_HOME", "VOLTA_HOME", "BUN_INSTALL", "DENO_DIR", "PNPM_HOME", "npm_config_prefix", "XDG_CACHE_HOME"} {
		add(env(v))
	}
	for _, gp := range filepath.SplitList(env("GOPATH")) {
		add(gp)
	}
	for _, d := range filepath.SplitList(env("PATH")) {
		add(d)
	}
	if env("GOROOT") == "" {
		add(goRoot(env("PATH")))
	}
	return out
}

// goRoot finds the Go root from the go program on PATH without running
// it: the directory above bin/go, links followed.
func goRoot(path string) string {
	for _, d := range filepath.SplitList(path) {
		if !filepath.IsAbs(d) {
			continue
		}
		p, err := exec.LookPath(filepath.Join(d, "go"))
		if err != nil {
			continue
		}
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			return ""
		}
		if root := filepath.Dir(filepath.Dir(real)); strings.HasSuffix(filepath.Dir(real), "bin") {
			if _, err := os.Stat(filepath.Join(root, "src", "runtime")); err == nil {
				return root
			}
		}
		return ""
	}
	return ""
}

// linksOnTheWay are the symbolic links met resolving p, each by its
// resolved directory and name: the links on its way, and those on the
// way of where they lead.
func linksOnTheWay(p string) []string {
	_, links := fspath.Resolve(filepath.Clean(p), maxLinksOnTheWay)
	return links
}

// maxLinksOnTheWay bounds the links linksOnTheWay follows, as the kernel
// bounds a lookup's.
const maxLinksOnTheWay = 40
