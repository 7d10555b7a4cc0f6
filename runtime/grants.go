package runtime

import (
	"strings"

	"github.com/toolhost/toolhost/runtime/config"
)

// A "wasm" grant reaches only the tools of the config that made it
// (config.Config.WasmFor): a repository's .opencode/tool/jira.ts that
// takes over the id of the user's jira.ts does not receive the user's
// "env": ["JIRA_TOKEN"]. A person who meant the grant for it learns so
// once: each withheld grant becomes one problem, logged when a host
// starts and listed by `toolhost doctor`, with the config that would
// grant it on purpose.

// GrantFiler is a tool that knows its file, as grants see it: wasm,
// plugin and JS tools.
type GrantFiler interface {
	GrantFile() config.ToolFile
}

// GrantFiles are the files of the tools that are GrantFilers.
func GrantFiles(tools []Tool) []config.ToolFile {
	var files []config.ToolFile
	for _, t := range tools {
		if g, ok := t.(GrantFiler); ok {
			files = append(files, g.GrantFile())
		}
	}
	return files
}

// GrantProblems lists, for the tools at files, each grant for one of their
// names that the config making it may not give them, and each path key in
// the user's own config that names nothing (config.Config.GrantKeyProblems).
func GrantProblems(cfg *config.Config, files []config.ToolFile) []LoadError {
	var out []LoadError
	seen := map[string]bool{}
	for _, f := range files {
		_, _, withheld := cfg.WasmFor(f)
		for _, w := range withheld {
			le := LoadError{Source: grantSource(f), File: f.Path, Reason: w.String()}
			if k := le.File + "\x00" + le.Reason; !seen[k] {
				seen[k] = true
				out = append(out, le)
			}
		}
	}
	for _, p := range cfg.GrantKeyProblems() {
		out = append(out, LoadError{Source: SourceWasm, File: "config", Reason: p})
	}
	return out
}

func grantSource(f config.ToolFile) Source {
	switch {
	case f.Dir != "" || f.Package:
		return SourcePlugin
	case strings.HasSuffix(f.Path, ".wasm"):
		return SourceWasm
	}
	return SourceJS
}
