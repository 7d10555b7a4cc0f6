package permission

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Scope is the tool an "always" approval was given to. A wasm or JS tool
// asks through the ask host function for any permission it names — a tool
// asking for bash with pattern "*" is not the bash tool — so a person's
// "always" to it approves that request for that tool only: for the same
// id from the same source and file. A tool that later takes over the id
// (a project's jira.ts shadowing the user's) is another scope and is
// asked again.
//
// The zero Scope is the built-in tools' (and any native tool's): their
// approvals hold for every unscoped request of the session, as before
// scopes existed, and approvals stored before then are unscoped.
type Scope struct {
	// Tool is the id of the tool that asked ("jira").
	Tool string `json:"tool,omitempty"`
	// Source is the registry source it came from ("wasm", "js", "plugin").
	Source string `json:"source,omitempty"`
	// File is the tool's file (module, script or plugin directory),
	// absolute.
	File string `json:"file,omitempty"`
}

// IsZero reports whether s is the unscoped (built-in) scope.
func (s Scope) IsZero() bool { return s == Scope{} }

// String is how a person is shown the scope: "jira (wasm,
// ~/.config/toolhost/tool/jira.wasm)"; "" for the zero Scope.
func (s Scope) String() string {
	if s.IsZero() {
		return ""
	}
	var where []string
	if s.Source != "" {
		where = append(where, s.Source)
	}
	if s.File != "" {
		where = append(where, tildeHome(s.File))
	}
	if len(where) == 0 {
		return s.Tool
	}
	return fmt.Sprintf("%s (%s)", s.Tool, strings.Join(where, ", "))
}

// tildeHome shortens a path under the home directory to ~/…, for display.
func tildeHome(p string) string {
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return p
	}
	if rel, err := filepath.Rel(home, p); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
		return "~" + string(filepath.Separator) + rel
	}
	return p
}

// AlwaysNote says, for a front end to show beside its "always" choice,
// what that answer approves and for whom: "jira (wasm,
// ~/.config/toolhost/tool/jira.wasm) asks: bash `*` — always applies to
// jira only". Empty for an unscoped request (a built-in tool's), whose
// "always" applies as it always has.
func AlwaysNote(req Request) string {
	if req.Scope.IsZero() {
		return ""
	}
	pats := req.Always
	if len(pats) == 0 {
		pats = patternsOf(req)
	}
	q := make([]string, len(pats))
	for i, p := range pats {
		q[i] = "`" + p + "`"
	}
	return fmt.Sprintf("%s asks: %s %s — always applies to %s only", req.Scope, req.Permission, strings.Join(q, ", "), req.Scope.Tool)
}

// ForScope returns the approvals that apply to a request of scope s: those
// given to s itself. An approval given to one tool never answers another
// tool's request, nor a built-in's (zero scope), and a built-in's never
// answers a scoped one.
func (rs Ruleset) ForScope(s Scope) Ruleset {
	var out Ruleset
	for _, r := range rs {
		if r.Scope == s {
			out = append(out, r)
		}
	}
	return out
}
