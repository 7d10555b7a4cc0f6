package runtime

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/toolhost/toolhost/internal/confine/fspath"
	"github.com/toolhost/toolhost/runtime/permission"
)

// PermissionExternalDirectory is asked before a tool touches a path outside
// the project.
const PermissionExternalDirectory = "external_directory"

// ResolvePath makes p absolute against the call's working directory and
// expands a leading "~/".
func (c *Context) ResolvePath(p string) string {
	if strings.HasPrefix(p, "~/") || p == "~" {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, strings.TrimPrefix(p, "~"))
		}
	}
	if !filepath.IsAbs(p) {
		base := c.Directory
		if base == "" {
			base, _ = os.Getwd()
		}
		p = filepath.Join(base, p)
	}
	return filepath.Clean(p)
}

// Contains reports whether target lies inside the project (Worktree, or
// Directory when no worktree is known), after resolving symlinks of both
// (for a path that does not exist yet, of its nearest existing parent),
// each once per call (RealPath).
func (c *Context) Contains(target string) bool {
	root := c.Worktree
	if root == "" {
		root = c.Directory
	}
	if root == "" {
		return true
	}
	return within(c.RealPath(root), c.RealPath(target))
}

func within(root, target string) bool { return fspath.Within(root, target) }

// realPath resolves symlinks of p, or of its longest existing prefix.
func realPath(p string) string { return fspath.Real(p) }

// CheckExternalDirectory asks the external_directory permission when target
// lies outside the project. Every file tool calls it before touching a path.
// isDir says target is itself a directory; otherwise its parent directory
// is what the rule pattern names. The pattern is built from the resolved
// path (symlinks followed), so a link in the project that leads to
// /outside/secret is asked about, allowed and denied as /outside/*, the
// place the bytes actually come from; Metadata keeps the path as given.
// Extra[ExtraBypassCwdCheck] skips it. A path allowed once is not asked
// about again within the same call.
func (c *Context) CheckExternalDirectory(ctx context.Context, target string, isDir bool) error {
	if c.bypassExternal() {
		return nil
	}
	if c.Contains(target) {
		return nil
	}
	k := c.externalKey(target, isDir)
	if c.wasAllowed(k) {
		return nil
	}
	resolved := c.RealPath(target)
	glob := externalPattern(resolved, isDir)
	err := c.Ask(ctx, permission.Request{
		Permission: PermissionExternalDirectory,
		Patterns:   []string{glob},
		Always:     []string{glob},
		Metadata:   map[string]any{"filepath": target, "resolved": resolved, "parentDir": filepath.Dir(glob)},
	})
	if err == nil {
		c.rememberAllowed(k)
	}
	return err
}

func (c *Context) bypassExternal() bool {
	b, _ := c.Extra[ExtraBypassCwdCheck].(bool)
	return b
}

// externalPattern is the rule pattern naming a resolved path: the directory
// itself, or a file's parent directory, followed by "/*".
func externalPattern(resolved string, isDir bool) string {
	dir := resolved
	if !isDir {
		dir = filepath.Dir(resolved)
	}
	return filepath.Join(dir, "*")
}

// ExternalDecision is what the external_directory rules say about one path,
// decided without asking anyone (see DecideExternal).
type ExternalDecision struct {
	// Resolved is the path with every symlink followed.
	Resolved string
	// Inside is true when Resolved lies in the project (or the bypass flag
	// is set): no permission is needed.
	Inside bool
	// Pattern is the rule pattern the path was evaluated as ("/outside/*");
	// a rule {"external_directory": {Pattern: "allow"}} would allow it.
	Pattern string
	// Rule is the deciding rule; its Action is permission.Ask with Source
	// permission.NoRuleSource when no rule matched. Zero when Inside.
	Rule permission.Rule
}

// Allowed reports whether the path may be used without asking: it is in
// the project, or a rule or session approval allows it.
func (d ExternalDecision) Allowed() bool {
	return d.Inside || d.Rule.Action == permission.Allow
}

// DecideExternal evaluates the external_directory permission for target
// the way Ask would — the agent's rules, the call's Rules, then the
// session's "always" approvals, a deny in the rules being final — but never
// asks a person: an "ask" outcome is returned as such. Each (target, isDir)
// is decided once per call. It is for tools that
// meet many paths they were not asked to open, such as a walker meeting
// symbolic links, where one question per link would be noise: they follow
// what is allowed and report what they skipped. target is resolved
// (symlinks followed) first; isDir says it names a directory.
//
// Without a Rulebook (a Context from NewContext) only c.Rules are known;
// when the agent's rules or the approvals cannot be read the decision is
// Ask, so an unknown never allows.
func (c *Context) DecideExternal(ctx context.Context, target string, isDir bool) ExternalDecision {
	return c.decideOnce(ctx, c.externalKey(target, isDir), func(ctx context.Context) ExternalDecision {
		return c.decideExternal(ctx, target, isDir)
	})
}

func (c *Context) decideExternal(ctx context.Context, target string, isDir bool) ExternalDecision {
	d := ExternalDecision{Resolved: c.RealPath(target)}
	if c.bypassExternal() || c.Contains(d.Resolved) {
		d.Inside = true
		return d
	}
	d.Pattern = externalPattern(d.Resolved, isDir)
	unknown := permission.Rule{Permission: PermissionExternalDirectory, Pattern: "*", Action: permission.Ask, Source: permission.NoRuleSource}
	var rules, approved permission.Ruleset
	if c.Rulebook != nil {
		var err error
		if rules, err = c.Rulebook.AgentRules(c.Agent); err != nil {
			d.Rule = unknown
			return d
		}
		if approved, err = c.Rulebook.Approved(ctx, c.SessionID); err != nil {
			approved = nil // approvals only allow; without them the rules still decide
		}
	}
	rules = append(slices.Clip(rules), c.Rules...)
	d.Rule, _ = permission.Evaluate(PermissionExternalDirectory, d.Pattern, rules)
	if d.Rule.Action != permission.Deny && len(approved) > 0 {
		d.Rule, _ = permission.Evaluate(PermissionExternalDirectory, d.Pattern, rules, approved)
	}
	return d
}
