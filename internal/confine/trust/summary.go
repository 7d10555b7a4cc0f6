package trust

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/toolhost/toolhost/runtime/config"
	"github.com/toolhost/toolhost/runtime/permission"
)

// Summary is what trusting a project would let its content do, for a
// person to read before trusting it (`toolhost trust`, the inbox page).
type Summary struct {
	// Run lists the programs the project's config would start: MCP
	// servers and language servers with their arguments, plugins, the
	// bash shell.
	Run []string `json:"run"`
	// Grant lists capabilities given: wasm and JS tool grants, sandbox
	// settings, remote MCP servers and their headers.
	Grant []string `json:"grant"`
	// Loosen lists the project's allow and ask rules (deny rules apply
	// untrusted already).
	Loosen []string `json:"loosen"`
	// Tools lists the tool and plugin files that would load.
	Tools []string `json:"tools"`
	// Settings lists every other key the project's config files set.
	Settings []string `json:"settings"`
}

// Summarize describes what full — the config loaded with the project
// trusted — takes from the project's files, and the tool files of m.
func Summarize(full *config.Loaded, m *Manifest) Summary {
	var s Summary
	if m != nil {
		for _, e := range m.Entries {
			if isConfigFile(e.Rel) {
				continue
			}
			s.Tools = append(s.Tools, e.Rel)
		}
		s.Grant = append(s.Grant, lockGrants(m)...)
	}
	if full == nil {
		return s
	}
	cfg := full.Config
	keys := cfg.KeysSetBy(full.ProjectFiles)
	set := func(prefix ...string) bool {
		p := strings.Join(prefix, ".")
		return slices.ContainsFunc(keys, func(k string) bool { return k == p || strings.HasPrefix(k, p+".") })
	}
	shown := map[string]bool{"mcp": true, "lsp": true, "plugin": true, "wasm": true, "sandbox": true, "bash.shell": true, "trust.keys": true}
	for _, name := range slices.Sorted(maps.Keys(cfg.MCP)) {
		if !set("mcp", name) {
			continue
		}
		srv := cfg.MCP[name]
		if srv.Type == "remote" {
			s.Grant = append(s.Grant, fmt.Sprintf("MCP server %s: connect to %s%s", name, srv.URL, headerNames(srv.Headers)))
			continue
		}
		s.Run = append(s.Run, fmt.Sprintf("MCP server %s: %s%s", name, quoteArgs(srv.Command), envNames(srv.Environment)))
	}
	if cfg.LSP.Off && set("lsp") {
		s.Settings = append(s.Settings, "lsp: false (every language server off)")
	}
	for _, name := range slices.Sorted(maps.Keys(cfg.LSP.Servers)) {
		if !set("lsp", name) {
			continue
		}
		srv := cfg.LSP.Servers[name]
		if srv.Disabled {
			s.Settings = append(s.Settings, "language server "+name+": disabled")
			continue
		}
		s.Run = append(s.Run, fmt.Sprintf("language server %s: %s%s", name, quoteArgs(srv.Command), envNames(srv.Env)))
	}
	if set("plugin") {
		for _, p := range cfg.Plugin {
			s.Run = append(s.Run, "plugin package "+p)
		}
	}
	if set("bash", "shell") {
		s.Run = append(s.Run, "bash tool's shell: "+cfg.Bash.Shell)
	}
	for _, name := range slices.Sorted(maps.Keys(cfg.Wasm)) {
		if !set("wasm", name) {
			continue
		}
		w := cfg.Wasm[name]
		var g []string
		if len(w.Env) > 0 {
			g = append(g, "environment variables "+strings.Join(w.Env, ", "))
		}
		for _, host := range slices.Sorted(maps.Keys(w.AllowedPaths)) {
			g = append(g, fmt.Sprintf("path %s as %s", host, w.AllowedPaths[host]))
		}
		if len(w.AllowedHosts) > 0 {
			g = append(g, "hosts "+strings.Join(w.AllowedHosts, ", "))
		}
		if w.Sampling {
			g = append(g, "sampling (spends the model budget)")
		}
		if len(w.Config) > 0 {
			g = append(g, "config keys "+strings.Join(slices.Sorted(maps.Keys(w.Config)), ", "))
		}
		if len(g) == 0 {
			g = append(g, "limits only")
		}
		s.Grant = append(s.Grant, "tool "+name+": "+strings.Join(g, "; "))
	}
	for _, r := range cfg.ReferencesBy(full.ProjectFiles) {
		s.Grant = append(s.Grant, "substitutes "+r)
	}
	if set("trust", "keys") {
		for _, k := range cfg.Trust.Keys {
			s.Grant = append(s.Grant, "plugin signing key: "+k)
		}
	}
	if set("sandbox") {
		sb := cfg.Sandbox
		if !sb.On() {
			s.Grant = append(s.Grant, "sandbox: off (bash commands run unconfined)")
		}
		for _, w := range sb.Writable {
			s.Grant = append(s.Grant, "sandbox: writable "+w)
		}
		if sb.Network != nil && *sb.Network {
			s.Grant = append(s.Grant, "sandbox: network on")
		}
	}
	for _, k := range keys {
		top, _, _ := strings.Cut(k, ".")
		if shown[top] || shown[k] || strings.HasPrefix(k, "bash.shell") {
			continue
		}
		s.Settings = append(s.Settings, k)
	}
	files := map[string]bool{}
	for _, f := range full.ProjectFiles {
		files[f] = true
	}
	add := func(agent string, rules permission.Ruleset) {
		for _, r := range rules {
			if r.Action == permission.Deny || !files[ruleFile(r.Source)] {
				continue
			}
			line := r.String()
			if agent != "" {
				line = "agent " + agent + ": " + line
			}
			s.Loosen = append(s.Loosen, line)
		}
	}
	add("", cfg.Permission.Rules)
	for _, name := range slices.Sorted(maps.Keys(cfg.Agent)) {
		add(name, cfg.Agent[name].Permission.Rules)
	}
	return s
}

// ruleFile is the file of a rule's "file:line" Source.
func ruleFile(source string) string {
	if i := strings.LastIndexByte(source, ':'); i > 0 {
		return source[:i]
	}
	return source
}

func isConfigFile(rel string) bool {
	base := rel[strings.LastIndexByte(rel, '/')+1:]
	return slices.Contains(config.FileNames, base) || base == lockFile
}

func quoteArgs(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\$`;&|<>(){}*?[]#~") {
			q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		} else {
			q[i] = a
		}
	}
	return strings.Join(q, " ")
}

func envNames(env map[string]string) string {
	if len(env) == 0 {
		return ""
	}
	return " (environment " + strings.Join(slices.Sorted(maps.Keys(env)), ", ") + ")"
}

func headerNames(h map[string]string) string {
	if len(h) == 0 {
		return ""
	}
	return " with headers " + strings.Join(slices.Sorted(maps.Keys(h)), ", ")
}

// Lines renders the summary for a terminal, one item a line under its
// heading; sections with nothing are left out.
func (s Summary) Lines() []string {
	var out []string
	for _, sec := range []struct {
		title string
		items []string
	}{
		{"Would run", s.Run},
		{"Would grant", s.Grant},
		{"Would loosen these rules", s.Loosen},
		{"Would load these tool and plugin files", s.Tools},
		{"Would also set", s.Settings},
	} {
		if len(sec.items) == 0 {
			continue
		}
		out = append(out, sec.title+":")
		for _, it := range sec.items {
			out = append(out, "  "+Printable(it))
		}
	}
	return out
}

// Printable escapes control characters (as Go's %q does) so that what a
// project's config names cannot move the cursor, clear a line or recolour
// a terminal to hide what a person is asked to trust.
func Printable(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return unicode.IsControl(r) || r == utf8.RuneError || unicode.In(r, unicode.Cf) }) {
		return s
	}
	q := strconv.Quote(s)
	return q[1 : len(q)-1]
}

// lockGrants lists the capabilities toolhost.lock grants each plugin
// package it pins: they run with them once the project is trusted (a
// fresh checkout's `toolhost plugin install` fetches them without
// asking). The lock is read as the manifest hashed it, or not at all.
func lockGrants(m *Manifest) []string {
	i := slices.IndexFunc(m.Entries, func(e Entry) bool { return e.Rel == lockFile })
	if i < 0 {
		return nil
	}
	data, err := os.ReadFile(filepath.Join(m.Worktree, lockFile))
	sum := sha256.Sum256(data)
	if err != nil || hex.EncodeToString(sum[:]) != m.Entries[i].SHA256 {
		return []string{lockFile + ": changed while being read, so what it grants cannot be shown; look again"}
	}
	var lock struct {
		Plugins []struct {
			Name    string          `json:"name"`
			Version string          `json:"version"`
			Ref     string          `json:"ref"`
			Granted json.RawMessage `json:"granted"`
		} `json:"plugins"`
	}
	if err := json.Unmarshal(data, &lock); err != nil {
		return []string{fmt.Sprintf("%s does not parse (%v), so what it grants cannot be shown", lockFile, err)}
	}
	var out []string
	for _, p := range lock.Plugins {
		var b bytes.Buffer
		granted := "nothing"
		if len(p.Granted) > 0 && json.Compact(&b, p.Granted) == nil && b.String() != "{}" && b.String() != "null" {
			granted = b.String()
		}
		out = append(out, fmt.Sprintf("plugin package %s %s (%s, pinned in %s): %s", p.Name, p.Version, p.Ref, lockFile, granted))
	}
	return out
}
