package js

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Where lists where JS tool files are looked for.
type Where struct {
	// ConfigDirs are toolhost's config directories, lowest precedence
	// first; their tool/ and tools/ folders are read.
	ConfigDirs []string
	// OpenCode adds OpenCode's folders: ~/.config/opencode/tool(s)/ and
	// .opencode/tool(s)/ from the worktree root down to Directory.
	OpenCode            bool
	Directory, Worktree string
	// ConfigHome is $XDG_CONFIG_HOME (default ~/.config).
	ConfigHome string
}

// Files lists the JS and TS tool files, lowest precedence first: OpenCode's
// global folder, OpenCode's project folders from the root down, then
// toolhost's config directories. Within a folder files sort by name;
// declaration files (.d.ts) are not tools.
func Files(w Where) []string {
	dirs := Folders(w)
	var out []string
	seen := map[string]bool{}
	for _, d := range dirs {
		ents, err := os.ReadDir(d)
		if err != nil {
			continue
		}
		var names []string
		for _, e := range ents {
			n := e.Name()
			if e.IsDir() || strings.HasSuffix(n, ".d.ts") || strings.HasPrefix(n, ".") {
				continue
			}
			if ext := filepath.Ext(n); ext == ".ts" || ext == ".js" {
				names = append(names, n)
			}
		}
		sort.Strings(names)
		for _, n := range names {
			p := filepath.Join(d, n)
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	return out
}

// Folders are the tool folders Files reads, lowest precedence first.
func Folders(w Where) []string {
	var dirs []string
	if w.OpenCode {
		if w.ConfigHome != "" {
			dirs = append(dirs, toolDirs(filepath.Join(w.ConfigHome, "opencode"))...)
		}
		for _, d := range walkUp(w.Directory, w.Worktree) {
			dirs = append(dirs, toolDirs(filepath.Join(d, ".opencode"))...)
		}
	}
	for _, d := range w.ConfigDirs {
		dirs = append(dirs, toolDirs(d)...)
	}
	return dirs
}

func toolDirs(d string) []string {
	return []string{filepath.Join(d, "tool"), filepath.Join(d, "tools")}
}

// walkUp returns the folders from worktree down to directory (directory
// alone when it is not inside worktree).
func walkUp(directory, worktree string) []string {
	if directory == "" {
		return nil
	}
	var up []string
	for d := filepath.Clean(directory); ; d = filepath.Dir(d) {
		up = append(up, d)
		if d == worktree || filepath.Dir(d) == d {
			break
		}
	}
	if up[len(up)-1] != worktree {
		up = up[:1]
	}
	for i, j := 0, len(up)-1; i < j; i, j = i+1, j-1 {
		up[i], up[j] = up[j], up[i]
	}
	return up
}
