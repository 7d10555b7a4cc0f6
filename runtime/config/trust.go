package config

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/toolhost/toolhost/runtime/permission"
)

// A project's own config files — toolhost.json(c) at the worktree root and
// in its .toolhost directories — arrive with the project: a cloned
// repository, or a file a tool just rewrote. Until a person trusts them
// (internal/confine/trust), Load with UntrustedProject keeps only what can make a
// decision stricter: their deny rules, top-level and per agent. Everything
// else they set (MCP servers, language servers, plugins, wasm grants, the
// sandbox, allow and ask rules, agents' prompts) is dropped, so the host
// runs on the user's own config.
//
// Why deny rules alone, and not "evaluate with and without the project's
// rules and take the stricter": under last-match-wins a deny rule added
// anywhere in the list can only turn a decision into deny — the last
// matching rule is either the added one or the one that decided before —
// so the result is stricter by construction, with no change to the
// evaluator or to the places that explain its decisions. An untrusted ask
// rule is dropped rather than kept, because placed after a user's deny it
// would loosen it to ask.

// ProjectFiles lists the config files that belong to the project: those
// at the worktree root and in the project's .toolhost directories, minus
// any that are also the user's own (the global directory, ~/.toolhost and
// $TOOLHOST_CONFIG_DIR, even when the worktree contains or is one of them,
// are always the user's). Files need not exist.
func ProjectFiles(opts DirOptions) []string {
	o := opts.withDefaults()
	dirs := configDirs(o)
	set := projectFileSet(o, dirs)
	var out []string
	for _, f := range configFiles(o, dirs) {
		if set[f] {
			out = append(out, f)
		}
	}
	return out
}

// ProjectDirs lists the project's .toolhost directories that Load reads
// (those that exist and are not also one of the user's directories),
// root first.
func ProjectDirs(opts DirOptions) []string {
	var out []string
	for _, d := range configDirs(opts.withDefaults()) {
		if d.kind == dirProject {
			out = append(out, d.path)
		}
	}
	return out
}

// UserDirs lists the config directories that are the user's own: every
// directory Dirs returns except the project's .toolhost directories.
func UserDirs(opts DirOptions) []string {
	var out []string
	for _, d := range configDirs(opts.withDefaults()) {
		if d.kind != dirProject {
			out = append(out, d.path)
		}
	}
	return out
}

// projectFileSet is ProjectFiles as a set, from the directories already
// listed (configDirs drops a duplicate at its weaker position, so a
// directory that is both a project and a user directory is listed as the
// user's).
func projectFileSet(o DirOptions, dirs []configDir) map[string]bool {
	user := map[string]bool{}
	project := map[string]bool{}
	for _, n := range FileNames {
		project[filepath.Join(o.Worktree, n)] = true
	}
	for _, d := range dirs {
		for _, n := range FileNames {
			f := filepath.Join(d.path, n)
			if d.kind == dirProject {
				project[f] = true
			} else {
				user[f] = true
			}
		}
	}
	for f := range user {
		delete(project, f)
	}
	return project
}

// tighteningOnly keeps of an untrusted project source its deny rules.
func tighteningOnly(p *parsed) *parsed {
	out := &parsed{tree: map[string]any{}, origins: map[string]origin{}, top: denyRules(p.top), agents: map[string]permission.Ruleset{}}
	for name, rules := range p.agents {
		if d := denyRules(rules); len(d) > 0 {
			out.agents[name] = d
		}
	}
	return out
}

func denyRules(rules permission.Ruleset) permission.Ruleset {
	var out permission.Ruleset
	for _, r := range rules {
		if r.Action == permission.Deny {
			out = append(out, r)
		}
	}
	return out
}

// noteAgents records the agents a source names, with or without rules.
func noteAgents(defined map[string]bool, p *parsed) {
	for name := range p.agents {
		defined[name] = true
	}
	agents, _ := p.tree["agent"].(map[string]any)
	for name := range agents {
		defined[name] = true
	}
}

// OnlyHeldAgent reports whether agent is named by no config source but an
// untrusted project's (its deny rules kept, everything else held back):
// such an entry of Agent tightens a built-in agent of that name and must
// not define a new one, which would start with the default rules and
// mode "all" (runtime.ResolveAgents).
func (c *Config) OnlyHeldAgent(agent string) bool {
	return slices.Contains(c.heldAgents, agent)
}

// substitution is one {env:VAR} or {file:path} a source expanded, at key.
type substitution struct {
	source, key, ref string
}

// ReferencesBy lists the {env:…} and {file:…} references files expanded,
// as the reference and the dotted key it fills ("{env:TOKEN} in
// mcp.jira.headers.Authorization"): what of the user's environment and
// files a project's config hands to the programs and servers it names.
// The trust summary shows them, since it shows headers and environment
// by name only.
func (c *Config) ReferencesBy(files []string) []string {
	var out []string
	for _, r := range c.refs {
		if slices.Contains(files, r.source) {
			out = append(out, r.ref+" in "+r.key)
		}
	}
	return out
}

// KeysSetBy lists, sorted and dotted ("mcp.lint.command"), the innermost
// key paths that files set; permission rules are not keys (their Source
// names their file). The trust summary shows them.
func (c *Config) KeysSetBy(files []string) []string {
	in := map[string]bool{}
	for _, f := range files {
		in[f] = true
	}
	var keys []string
	for k, o := range c.origins {
		if in[o.source] {
			keys = append(keys, k)
		}
	}
	var out []string
	for _, k := range keys {
		leaf := true
		for _, other := range keys {
			if len(other) > len(k) && other[:len(k)] == k && other[len(k)] == 0 {
				leaf = false
				break
			}
		}
		if leaf {
			out = append(out, strings.ReplaceAll(k, "\x00", "."))
		}
	}
	slices.Sort(out)
	return out
}
