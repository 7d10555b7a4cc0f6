package builtins

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/toolhost/toolhost/internal/confine/fspath"
	"github.com/toolhost/toolhost/internal/engines/search"
	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/permission"
)

// This file is the rule glob, grep and list apply to symbolic links met
// while walking: a link is judged by where it leads once every link on the
// way is followed, never by its own path. A target in the project, or
// under the directory the call was allowed to search, is read as any file
// there. A target anywhere else is read only when the external_directory
// rules already allow it (runtime.Context.DecideExternal): a walk may meet
// hundreds of links, and a question per link would be noise, so "ask" and
// "deny" both mean skip, and the result's footer says how many were
// skipped and which links they are. It names the links by their own paths
// in the project, never where they lead: the footer goes to the model, and
// the names of directories outside the project (a home directory's
// projects, a mounted volume's folders) are not the model's to learn from
// a listing. The person answering a read of one such link by its path is
// shown the target in the question.

// linkExamples is how many skipped links the footer names.
const linkExamples = 3

// externalLinks is the search.LinkPolicy of a file tool's call.
type externalLinks struct {
	ctx  context.Context
	tc   *runtime.Context
	root string // the walk root, resolved: allowed by the call's own check

	mu      sync.Mutex
	skipped []skippedLink
}

// skippedLink is a link left out, for the footer. Where it leads is not
// kept: the footer must not tell it.
type skippedLink struct {
	link   string // the link's path ("" for a directory below a followed link)
	action permission.Action
}

// newExternalLinks returns the link policy for a walk of root (already
// allowed by tc.CheckExternalDirectory).
func newExternalLinks(ctx context.Context, tc *runtime.Context, root string) *externalLinks {
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	return &externalLinks{ctx: ctx, tc: tc, root: root}
}

// Follow decides a link by where it leads (see the top of this file).
func (g *externalLinks) Follow(resolved string, isDir bool, link string) (ok, outside bool) {
	if fspath.Within(g.root, resolved) {
		return true, false
	}
	d := g.tc.DecideExternal(g.ctx, resolved, isDir)
	if d.Inside {
		return true, false
	}
	if d.Allowed() {
		return true, true
	}
	g.mu.Lock()
	g.skipped = append(g.skipped, skippedLink{link: link, action: d.Rule.Action})
	g.mu.Unlock()
	return false, true
}

// count is the number of links (and directories below followed links)
// left out.
func (g *externalLinks) count() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.skipped)
}

// footer says how many links were skipped and names the first few by
// their paths as the call shows paths (relative to the project), in path
// order so the text is deterministic; "" when nothing was skipped. Where
// they lead is never told (see the top of this file), nor the rule that
// kept them out (its pattern would name the place).
func (g *externalLinks) footer() string {
	g.mu.Lock()
	skipped := slices.Clone(g.skipped)
	g.mu.Unlock()
	if len(skipped) == 0 {
		return ""
	}
	var links []skippedLink
	below := 0
	for _, s := range skipped {
		if s.link == "" {
			below++
			continue
		}
		s.link = displayPath(g.tc, s.link)
		links = append(links, s)
	}
	slices.SortFunc(links, func(a, b skippedLink) int { return strings.Compare(a.link, b.link) })
	var b strings.Builder
	noun := "symbolic links"
	if len(skipped) == 1 {
		noun = "symbolic link"
	}
	fmt.Fprintf(&b, "(Skipped %d %s leading outside the project: %s does not allow the places they lead to without asking.", len(skipped), noun, runtime.PermissionExternalDirectory)
	for _, s := range links[:min(len(links), linkExamples)] {
		fmt.Fprintf(&b, "\n  %s (%s)", s.link, actionText(s.action))
	}
	if more := len(links) - linkExamples; more > 0 {
		fmt.Fprintf(&b, "\n  and %d more", more)
	}
	if below > 0 {
		fmt.Fprintf(&b, "\n  and %d %s below a followed link", below, plural(below, "directory", "directories"))
	}
	fmt.Fprintf(&b, "\nTo read one, name the link itself to the read tool (a person is asked), or allow where it leads with an %q rule.)", runtime.PermissionExternalDirectory)
	return b.String()
}

// actionText says briefly why a link's target was not allowed.
func actionText(a permission.Action) string {
	if a == permission.Deny {
		return "denied"
	}
	return "would ask"
}

// plural is one or many by n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

var _ search.LinkPolicy = (*externalLinks)(nil)
