package host

import (
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/toolhost/toolhost/plugins/js"
	"github.com/toolhost/toolhost/plugins/wasm"
	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/config"
)

// A "wasm" grant reaches only the tools of the config that made it
// (config.Config.WasmFor): a repository's .opencode/tool/jira.ts that
// takes over the id of the user's jira.ts does not receive the user's
// "env": ["JIRA_TOKEN"]. A person who meant the grant for it learns so
// once, here: each withheld grant becomes one GrantProblem, logged when
// the host starts and listed by `toolhost doctor`, with the config that
// would grant it on purpose.

// grantFiler is a tool that knows its file, as grants see it: wasm, plugin
// and JS tools.
type grantFiler interface {
	GrantFile() config.ToolFile
}

// noteWithheldGrants records, once, the grants that exist for the names of
// the host's wasm, plugin and JS tools but do not reach them.
func (h *Host) noteWithheldGrants(log *slog.Logger, tools []runtime.Tool) {
	var files []config.ToolFile
	for _, t := range tools {
		if g, ok := t.(grantFiler); ok {
			files = append(files, g.GrantFile())
		}
	}
	h.GrantProblems = GrantProblems(h.Config, files)
	for _, p := range h.GrantProblems {
		log.Warn("tool grant withheld", "file", p.File, "reason", p.Reason)
	}
}

// GrantProblems lists, for the tools at files, each grant for one of their
// names that the config making it may not give them, and each path key in
// the user's own config that names nothing (config.Config.GrantKeyProblems).
func GrantProblems(cfg *config.Config, files []config.ToolFile) []runtime.LoadError {
	var out []runtime.LoadError
	seen := map[string]bool{}
	for _, f := range files {
		_, _, withheld := cfg.WasmFor(f)
		for _, w := range withheld {
			le := runtime.LoadError{Source: sourceOfFile(f), File: f.Path, Reason: w.String()}
			if k := le.File + "\x00" + le.Reason; !seen[k] {
				seen[k] = true
				out = append(out, le)
			}
		}
	}
	for _, p := range cfg.GrantKeyProblems() {
		out = append(out, runtime.LoadError{Source: runtime.SourceWasm, File: "config", Reason: p})
	}
	return out
}

func sourceOfFile(f config.ToolFile) runtime.Source {
	switch {
	case f.Dir != "" || f.Package:
		return runtime.SourcePlugin
	case strings.HasSuffix(f.Path, ".wasm"):
		return runtime.SourceWasm
	}
	return runtime.SourceJS
}

// ToolFiles lists the wasm and JS tool files of dirs (and OpenCode's
// folders, as where says) by file name, without loading any: what `toolhost
// doctor` checks grants against. A file's tools are named after it unless
// it names them otherwise, which only loading it tells.
func ToolFiles(dirs []string, where js.Where) []config.ToolFile {
	var out []config.ToolFile
	for _, f := range wasm.Files(dirs) {
		out = append(out, config.ToolFile{Names: []string{strings.TrimSuffix(filepath.Base(f), ".wasm")}, Path: f})
	}
	for _, f := range js.Files(where) {
		out = append(out, config.ToolFile{Names: []string{strings.TrimSuffix(filepath.Base(f), filepath.Ext(f))}, Path: f})
	}
	return out
}

// JSWhere is where the host looks for JS tool files: the config
// directories' tool folders and, unless "compat": {"opencode": false},
// OpenCode's ($XDG_CONFIG_HOME/opencode, default ~/.config/opencode, and
// the project's .opencode folders).
func JSWhere(cfg *config.Config, dirs []string, directory, worktree string, env func(string) string) js.Where {
	configHome := env(config.EnvXDGConfigHome)
	if configHome == "" {
		if home, err := os.UserHomeDir(); err == nil {
			configHome = filepath.Join(home, ".config")
		}
	}
	return js.Where{ConfigDirs: dirs, OpenCode: cfg.Compat.OpenCodeTools(),
		Directory: directory, Worktree: worktree, ConfigHome: configHome}
}

// grantedTools are the tools New loaded that grants apply to.
func (h *Host) grantedTools() []runtime.Tool {
	out := slices.Clone(h.wasmTools)
	if h.js != nil {
		out = append(out, h.js.tools()...)
	}
	for _, p := range h.Plugins {
		out = append(out, p.Tools...)
	}
	return out
}
