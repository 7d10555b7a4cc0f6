package builtins

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"

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
// "deny" both mean skip, and the result's footer says what was skipped and
// which rule would include it.

// linkExamples is how many skipped links the footer names.
const linkExamples = 3

// externalLinks is the linkPolicy of a file tool's call.
type externalLinks struct {
	ctx  context.Context
	tc   *runtime.Context
	root string // the walk root, resolved: allowed by the call's own check

	mu      sync.Mutex
	skipped []skippedLink
}

// skippedLink is a link left out, for the footer.
type skippedLink struct {
	link     string // the link's path ("" for a directory below a followed link)
	resolved string
	decision runtime.ExternalDecision
}

// newExternalLinks returns the link policy for a walk of root (already
// allowed by tc.CheckExternalDirectory).
func newExternalLinks(ctx context.Context, tc *runtime.Context, root string) *externalLinks {
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	return &externalLinks{ctx: ctx, tc: tc, root: root}
}

func (g *externalLinks) follow(resolved string, isDir bool, link string) (ok, outside bool) {
	if pathWithin(g.root, resolved) {
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
	g.skipped = append(g.skipped, skippedLink{link: link, resolved: resolved, decision: d})
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

// footer says what was skipped and how to include it, or "" when nothing
// was. It names the first few in path order so the text is deterministic.
func (g *externalLinks) footer() string {
	g.mu.Lock()
	skipped := slices.Clone(g.skipped)
	g.mu.Unlock()
	if len(skipped) == 0 {
		return ""
	}
	slices.SortFunc(skipped, func(a, b skippedLink) int {
		return strings.Compare(a.link+"\x00"+a.resolved, b.link+"\x00"+b.resolved)
	})
	var b strings.Builder
	noun := "symbolic links"
	if len(skipped) == 1 {
		noun = "symbolic link"
	}
	fmt.Fprintf(&b, "(Skipped %d %s leading outside the project: %s is not allowed for their targets without asking.", len(skipped), noun, runtime.PermissionExternalDirectory)
	for _, s := range skipped[:min(len(skipped), linkExamples)] {
		from := s.link
		if from == "" {
			from = "(directory below a followed link)"
		}
		fmt.Fprintf(&b, "\n  %s -> %s (%s)", from, s.resolved, decisionText(s.decision.Rule))
	}
	if len(skipped) > linkExamples {
		fmt.Fprintf(&b, "\n  and %d more", len(skipped)-linkExamples)
	}
	fmt.Fprintf(&b, "\nTo include them, allow their targets with a rule such as \"permission\": {%q: {%q: \"allow\"}}.)",
		runtime.PermissionExternalDirectory, skipped[0].decision.Pattern)
	return b.String()
}

// decisionText says briefly why a target was not allowed.
func decisionText(r permission.Rule) string {
	if r.Source == permission.NoRuleSource {
		return "ask: no rule matched"
	}
	return fmt.Sprintf("%s by %s", r.Action, r.String())
}

var _ linkPolicy = (*externalLinks)(nil)
