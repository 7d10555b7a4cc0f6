package config

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Names of the environment variables and files the loader reads.
const (
	// EnvConfigDir names one more config directory, with the highest
	// precedence of all directories.
	EnvConfigDir = "TOOLHOST_CONFIG_DIR"
	// EnvConfigContent holds inline config (JSONC) applied after every file.
	EnvConfigContent = "TOOLHOST_CONFIG_CONTENT"
	// EnvPermission holds a permission value (JSONC) whose rules are
	// appended after every other rule, so they win.
	EnvPermission = "TOOLHOST_PERMISSION"
	// EnvXDGConfigHome is the XDG base directory for user config.
	EnvXDGConfigHome = "XDG_CONFIG_HOME"

	// ProjectDirName is the per-directory config folder (".toolhost").
	ProjectDirName = ".toolhost"
	// AppName is the folder name under $XDG_CONFIG_HOME.
	AppName = "toolhost"
)

// FileNames are the config file names looked for in every config directory
// and at the project root, in the order they are read.
var FileNames = []string{"toolhost.json", "toolhost.jsonc"}

// DirOptions says where to look for config directories. Every field has a
// default taken from the process, so tests can stay hermetic by setting all
// of them.
type DirOptions struct {
	// Directory is the working directory. Default os.Getwd.
	Directory string
	// Worktree is the project root. Default FindWorktree(Directory).
	Worktree string
	// Env reads an environment variable. Default os.Getenv.
	Env func(string) string
	// Home is the user's home directory. Default os.UserHomeDir; when that
	// fails too, directories under home are skipped.
	Home string
}

// Resolve is o with every zero field filled from the process, as the
// loaders fill it, and its paths absolute: for a caller that keeps the
// paths (a host records them and hands them to every tool source). Unlike
// the loaders, it fails when the working directory cannot be found.
func (o DirOptions) Resolve() (DirOptions, error) {
	if o.Directory == "" {
		wd, err := os.Getwd()
		if err != nil {
			return o, fmt.Errorf("working directory: %w", err)
		}
		o.Directory = wd
	}
	dir, err := filepath.Abs(o.Directory)
	if err != nil {
		return o, fmt.Errorf("working directory %s: %w", o.Directory, err)
	}
	o.Directory = dir
	return o.withDefaults(), nil
}

// withDefaults fills the zero fields of o from the process and cleans paths.
func (o DirOptions) withDefaults() DirOptions {
	if o.Env == nil {
		o.Env = os.Getenv
	}
	if o.Directory == "" {
		o.Directory, _ = os.Getwd()
	}
	o.Directory = absClean(o.Directory)
	if o.Worktree == "" {
		o.Worktree = FindWorktree(o.Directory)
	}
	o.Worktree = absClean(o.Worktree)
	if o.Home == "" {
		o.Home, _ = os.UserHomeDir()
	}
	if o.Home != "" {
		o.Home = absClean(o.Home)
	}
	return o
}

// dirKind says which rule of the search produced a directory; the project
// root's files are read right after the global directory's.
type dirKind int

const (
	dirGlobal dirKind = iota
	dirProject
	dirHome
	dirEnv
)

type configDir struct {
	path string
	kind dirKind
}

// Dirs returns the config directories, lowest precedence first:
// $XDG_CONFIG_HOME/toolhost (default ~/.config/toolhost), every .toolhost
// directory from the worktree root down to the working directory (only those
// that exist), ~/.toolhost, then $TOOLHOST_CONFIG_DIR.
//
// A directory reached twice (TOOLHOST_CONFIG_DIR pointing at the global
// directory, a home directory inside the worktree) is kept at its later,
// stronger position only, so a directory named explicitly always wins and no
// file is read twice.
func Dirs(opts DirOptions) []string {
	dirs := configDirs(opts.withDefaults())
	out := make([]string, len(dirs))
	for i, d := range dirs {
		out[i] = d.path
	}
	return out
}

func configDirs(o DirOptions) []configDir {
	var dirs []configDir
	switch xdg := o.Env(EnvXDGConfigHome); {
	// The XDG spec says relative values are invalid and must be ignored.
	case xdg != "" && filepath.IsAbs(xdg):
		dirs = append(dirs, configDir{filepath.Join(xdg, AppName), dirGlobal})
	case o.Home != "":
		dirs = append(dirs, configDir{filepath.Join(o.Home, ".config", AppName), dirGlobal})
	}
	for _, d := range Chain(o.Worktree, o.Directory) {
		p := filepath.Join(d, ProjectDirName)
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			dirs = append(dirs, configDir{p, dirProject})
		}
	}
	if o.Home != "" {
		dirs = append(dirs, configDir{filepath.Join(o.Home, ProjectDirName), dirHome})
	}
	if d := o.Env(EnvConfigDir); d != "" {
		dirs = append(dirs, configDir{absClean(d), dirEnv})
	}
	return dedupKeepLast(dirs, func(d configDir) string { return d.path })
}

// Chain lists root, then each directory below it down to dir: the
// directories whose .toolhost folders Load reads, which the trust digest
// (internal/confine/trust) must cover alike. When dir is not inside root, only dir
// is listed: the project is then just dir.
func Chain(root, dir string) []string {
	rel, err := filepath.Rel(root, dir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return []string{dir}
	}
	out := []string{root}
	if rel == "." {
		return out
	}
	cur := root
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		cur = filepath.Join(cur, part)
		out = append(out, cur)
	}
	return out
}

// FindWorktree returns the nearest ancestor of dir (dir included) that
// contains a .git directory or file (a linked worktree or submodule has a
// .git file), or dir itself when there is none.
func FindWorktree(dir string) string {
	dir = absClean(dir)
	for cur := dir; ; {
		if _, err := os.Lstat(filepath.Join(cur, ".git")); err == nil {
			return cur
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return dir
		}
		cur = parent
	}
}

func absClean(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return filepath.Clean(p)
}

// dedupKeepLast removes earlier duplicates, keeping each key's last position.
func dedupKeepLast[T any](in []T, key func(T) string) []T {
	seen := make(map[string]bool, len(in))
	var out []T
	for i := len(in) - 1; i >= 0; i-- {
		k := key(in[i])
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, in[i])
	}
	slices.Reverse(out)
	return out
}

// WatchDirs is dirs (as Dirs returns them) with the project's config
// directories that do not exist yet — .toolhost at the worktree root and
// in the working directory, which Dirs lists only when present — put
// where they would rank, so a user may create .toolhost/tool/ while a
// host that follows its folders runs.
func WatchDirs(dirs []string, worktree, directory string) []string {
	isProject := func(d string) bool {
		return filepath.Base(d) == ProjectDirName && (d == filepath.Join(worktree, ProjectDirName) || strings.HasPrefix(d, worktree+string(filepath.Separator)))
	}
	var project []string
	first := -1
	for i, d := range dirs {
		if isProject(d) {
			project = append(project, d)
			if first < 0 {
				first = i
			}
		}
	}
	for _, d := range []string{filepath.Join(worktree, ProjectDirName), filepath.Join(directory, ProjectDirName)} {
		if !slices.Contains(project, d) {
			project = append(project, d)
		}
	}
	// Shallower directories rank lower, as Dirs orders them.
	slices.SortStableFunc(project, func(a, b string) int {
		return strings.Count(a, string(filepath.Separator)) - strings.Count(b, string(filepath.Separator))
	})
	if first < 0 {
		first = min(1, len(dirs)) // after the global directory
	}
	var out []string
	out = append(out, slices.DeleteFunc(slices.Clone(dirs[:first]), isProject)...)
	out = append(out, project...)
	out = append(out, slices.DeleteFunc(slices.Clone(dirs[first:]), isProject)...)
	return out
}
