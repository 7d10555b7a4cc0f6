package runtime

import (
	"cmp"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/toolhost/toolhost/runtime/config"
	"github.com/toolhost/toolhost/runtime/permission"
)

// UnknownKey is a key in the configuration that names no tool or
// permission the registry has: a typo ("bsah", "webfech") that would
// otherwise be accepted silently, its rule or switch applying to nothing.
// Config loading cannot tell, because which tools exist is known only once
// every source (built-ins, wasm modules, plugins, MCP servers) is in the
// registry; Registry.UnknownConfigKeys finds them then.
type UnknownKey struct {
	// Source is the file (or the environment variable holding inline
	// config) that holds the key, "config" when not known; Line its 1-based
	// line, 0 when not known.
	Source string
	Line   int
	// Kind is "permission" (a key of "permission"), "tool" (a key of
	// "tools") or "lsp" (a key of "lsp" that disables a server that is not
	// built in: it turns nothing off).
	Kind string
	// Agent is the agent whose section holds the key; "" for the top level.
	Agent string
	// Key is the key as written.
	Key string
	// Suggestion is the known name closest to Key; "" when none is close.
	Suggestion string
}

// String is the warning shown to the user: where, what, and the likely fix.
func (k UnknownKey) String() string {
	section := map[string]string{"permission": "permission", "tool": "tools", "lsp": "lsp"}[k.Kind]
	if k.Agent != "" {
		section = fmt.Sprintf("agent.%s.%s", k.Agent, section)
	}
	what := "no tool or permission toolhost knows; its rules apply to nothing"
	switch k.Kind {
	case "tool":
		what = "no tool toolhost knows; it turns nothing on or off"
	case "lsp":
		what = "no built-in language server; disabling it turns nothing off"
	}
	where := k.Source
	if k.Line > 0 {
		where = fmt.Sprintf("%s:%d", k.Source, k.Line)
	}
	msg := fmt.Sprintf("%s: %s key %q names %s", where, section, k.Key, what)
	if k.Suggestion != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", k.Suggestion)
	}
	return msg
}

// KnownWithoutTools are the names config keys may use for tools that are
// not registered because they failed to load — a module jira.wasm that
// did not compile (jira, jira_…), a plugin that was skipped — and for the
// MCP servers cfg names, started or not (name, name_…), for
// Registry.UnknownConfigKeys: the one problem is reported once, as the
// load error it is.
func KnownWithoutTools(cfg *config.Config, failed []LoadError) []string {
	var known []string
	for _, le := range failed {
		base := filepath.Base(le.File)
		base = strings.TrimSuffix(base, filepath.Ext(base))
		known = append(known, base, base+"_")
	}
	if cfg != nil {
		for name := range cfg.MCP {
			known = append(known, name, name+"_")
		}
	}
	return known
}

// UnknownConfigKeys checks the configuration's permission keys and tool
// switches, top level and per agent, against what the registry knows: the
// tools registered now, the permissions they declare (Traits.Permission),
// and the permissions the built-in rules name (external_directory,
// doom_loop). known adds names the caller knows of without their tools
// being registered — the tools of a module that failed to load, an MCP
// server's prefix — so a broken module does not turn its rules into
// warnings. A key with "*" or "?" is a pattern, and is not checked. The
// result is sorted by place.
func (r *Registry) UnknownConfigKeys(known ...string) []UnknownKey {
	cfg := r.opts.Config
	ids := r.IDs()
	tools := map[string]bool{}
	for _, id := range ids {
		tools[id] = true
	}
	perms := maps.Clone(tools)
	for _, id := range ids {
		if p := r.Traits(id).Permission; p != "" {
			perms[p] = true
		}
	}
	for _, a := range r.agents {
		for _, rule := range a.Rules {
			if rule.Source == RuleSourceDefault || strings.HasPrefix(rule.Source, ruleSourceAgent) {
				perms[rule.Permission] = true
			}
		}
	}
	for _, k := range known {
		tools[k], perms[k] = true, true
	}
	isKnown := func(set map[string]bool, key string) bool {
		if set[key] || strings.ContainsAny(key, "*?") {
			return true
		}
		for _, k := range known {
			// A prefix ends in "_": an MCP server's tools are <server>_<tool>.
			if strings.HasSuffix(k, "_") && strings.HasPrefix(key, k) {
				return true
			}
		}
		return false
	}

	var out []UnknownKey
	checkRules := func(agent string, rules permission.Ruleset) {
		seen := map[string]bool{}
		for _, rule := range rules {
			if seen[rule.Permission] || isKnown(perms, rule.Permission) {
				continue
			}
			seen[rule.Permission] = true
			src, line := splitSource(rule.Source)
			out = append(out, UnknownKey{Source: src, Line: line, Kind: "permission", Agent: agent, Key: rule.Permission,
				Suggestion: config.Suggest(rule.Permission, slices.Collect(maps.Keys(perms)))})
		}
	}
	checkTools := func(agent string, m map[string]bool) {
		for key := range m {
			if isKnown(tools, key) {
				continue
			}
			path := []string{"tools", key}
			if agent != "" {
				path = append([]string{"agent", agent}, path...)
			}
			src, line, ok := cfg.Origin(path...)
			if !ok {
				src = "config"
			}
			out = append(out, UnknownKey{Source: src, Line: line, Kind: "tool", Agent: agent, Key: key,
				Suggestion: config.Suggest(key, slices.Collect(maps.Keys(tools)))})
		}
	}
	checkRules("", cfg.Permission.Rules)
	checkTools("", cfg.Tools)
	for _, name := range slices.Sorted(maps.Keys(cfg.Agent)) {
		checkRules(name, cfg.Agent[name].Permission.Rules)
		checkTools(name, cfg.Agent[name].Tools)
	}
	for _, name := range slices.Sorted(maps.Keys(cfg.LSP.Servers)) {
		s := cfg.LSP.Servers[name]
		if _, builtin := config.BuiltinLSPServers()[name]; builtin || !s.Disabled {
			continue
		}
		src, line, ok := cfg.Origin("lsp", name)
		if !ok {
			src = "config"
		}
		out = append(out, UnknownKey{Source: src, Line: line, Kind: "lsp", Key: name,
			Suggestion: config.Suggest(name, slices.Collect(maps.Keys(config.BuiltinLSPServers())))})
	}
	slices.SortStableFunc(out, func(a, b UnknownKey) int {
		return cmp.Or(strings.Compare(a.Source, b.Source), cmp.Compare(a.Line, b.Line), strings.Compare(a.Key, b.Key))
	})
	return out
}

// splitSource splits a rule's Source, "file:line" or "file", into its
// parts; "config" when it is empty.
func splitSource(s string) (string, int) {
	if s == "" {
		return "config", 0
	}
	if i := strings.LastIndexByte(s, ':'); i > 0 {
		if n, err := strconv.Atoi(s[i+1:]); err == nil {
			return s[:i], n
		}
	}
	return s, 0
}
