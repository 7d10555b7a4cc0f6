package builtins

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/toolhost/toolhost/internal/confine/fspath"
	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/permission"
)

// outrightReads judges, for one call, which files the read rules let the
// model read without asking anyone: the content a tool shows besides what
// was asked for — instruction files a read brings along, the lines grep
// finds — must not be what a read of that file would be refused or asked
// about. The agent's rules, the session's approvals and the call's are
// applied, the last match deciding, as the read tool's own request would be
// judged; ask and deny both keep a file back. Outside a registry (no
// Rulebook) only the call's rules are known, and a path none of them
// matches is allowed. A file is judged by every name it has: the path as
// named, where its links lead (filePatterns), and its other names if it has
// hard links (hardLinkPatterns, one search of the project per call).
type outrightReads struct {
	tc    *runtime.Context
	sets  []permission.Ruleset
	ok    bool // false: the rules could not be loaded, and nothing is allowed
	every bool // the rules allow every path: nothing to judge

	linksOnce sync.Once
	links     *fspath.Links
}

func newOutrightReads(ctx context.Context, tc *runtime.Context) *outrightReads {
	o := &outrightReads{tc: tc}
	if tc.Rulebook != nil {
		agent, err := tc.Rulebook.AgentRules(tc.Agent)
		if err != nil {
			return o
		}
		approved, err := tc.Rulebook.Approved(ctx, tc.SessionID)
		if err != nil {
			return o
		}
		o.sets = append(o.sets, agent, approved)
	}
	o.sets = append(o.sets, tc.Rules)
	o.ok = true
	// A path of any text, decided as a template: allowed only when no
	// rule could keep some path back.
	dec, matched := permission.EvaluateTemplate(permissionRead, permission.Hole, o.sets...)
	o.every = (dec.Action == permission.Allow && len(matched) > 0) || (len(matched) == 0 && tc.Rulebook == nil)
	return o
}

// allowed reports whether p, whose Stat is info, may be read without
// asking.
func (o *outrightReads) allowed(p string, info fs.FileInfo) bool {
	return o.allowedAt(p, "", info)
}

// allowedAt is allowed for a caller that knows more of p: target, when p
// is itself a link, is where it leads (resolved). The real path is then
// the target, or p's directory resolved (once per directory in a call,
// Context.RealPath) with p's name: no walk of p's own components per file,
// which made a search with a thousand matching files take twice as long.
func (o *outrightReads) allowedAt(p, target string, info fs.FileInfo) bool {
	if !o.ok {
		return false
	}
	if o.every {
		return true
	}
	real := target
	if real == "" {
		real = filepath.Join(o.tc.RealPath(filepath.Dir(p)), filepath.Base(p))
		if st, err := os.Lstat(real); err != nil || st.Mode()&fs.ModeSymlink != 0 {
			real = o.tc.RealPath(p) // a link after all (a search of one file): the long way
		}
	}
	o.linksOnce.Do(func() { o.links = projectLinks(o.tc) })
	patterns, unresolved := hardLinkPatterns(o.tc, p, info, filePatternsReal(o.tc, p, real), o.links)
	for _, pattern := range patterns {
		dec, matched := permission.Evaluate(permissionRead, pattern, o.sets...)
		if t, ok := unresolved[pattern]; ok {
			dec, matched = permission.EvaluateTemplate(permissionRead, t, o.sets...)
		}
		if len(matched) == 0 {
			if o.tc.Rulebook != nil {
				return false
			}
			continue
		}
		if dec.Action != permission.Allow {
			return false
		}
	}
	return true
}

// askReadFor asks the read permission for path, as the read tool would
// (every name of it, hard links included), when a write tool is about to
// read the file's content for its diff without the session having read it
// (a front end that skips the read check, Front.SkipReadCheck; apply_patch,
// which needs no read), and the read rules do not allow it outright. edit,
// write and apply_patch show the content they replace — in the question a
// person answers and in the result the client gets — so without this they
// would read what the read tool is refused: `.env` itself, or a hard link
// to it. A file that does not exist has nothing to read.
func askReadFor(ctx context.Context, tc *runtime.Context, path string) error {
	info, err := os.Stat(path)
	if err != nil || !info.Mode().IsRegular() {
		return nil
	}
	o := newOutrightReads(ctx, tc)
	if o.allowed(path, info) {
		return nil
	}
	named, unresolved := hardLinkPatterns(tc, path, info, filePatterns(tc, path), o.links)
	return tc.Ask(ctx, permission.Request{
		Permission: permissionRead,
		Patterns:   named,
		Always:     alwaysForEach(slices.DeleteFunc(slices.Clone(named), func(p string) bool { _, ok := unresolved[p]; return ok }), false),
		Unresolved: unresolved,
		Metadata:   map[string]any{"filepath": path},
	})
}
