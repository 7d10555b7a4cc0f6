package builtins

import (
	"cmp"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/toolhost/toolhost/internal/engines/search"
	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/permission"
)

//go:embed glob.txt
var globDescription string

// globMaxResults is how many paths glob shows.
const globMaxResults = 100

// globParams are the glob tool's arguments.
type globParams struct {
	Pattern string `json:"pattern" jsonschema:"description=The glob pattern to match files against"`
	Path    string `json:"path,omitempty" jsonschema:"description=The directory to search in. If not specified, the current working directory will be used. IMPORTANT: Omit this field to use the default directory. DO NOT enter \"undefined\" or \"null\" - simply omit it for the default behavior. Must be a valid directory path if provided."`
}

// Glob returns the glob tool: files whose path matches a glob pattern
// (doublestar syntax, ** included), newest first, honouring .gitignore.
func Glob() runtime.Tool {
	return runtime.Declare(runtime.Define("glob", globDescription, runGlob), globTraits)
}

// globTraits: asks "glob" for the pattern itself; changes nothing.
var globTraits = runtime.Traits{ChecksOwnPermission: true, Hints: &runtime.Hints{ReadOnly: true, Idempotent: true}}

func runGlob(ctx context.Context, p globParams, tc *runtime.Context) (runtime.Result, error) {
	pattern := strings.TrimPrefix(filepath.ToSlash(p.Pattern), "./")
	if pattern == "" {
		return runtime.Result{}, errors.New("pattern is required: give a glob such as \"**/*.go\"")
	}
	dir := p.Path
	// An absolute pattern names its own directory: search from its static
	// prefix ("/src/app/**/*.ts" searches /src/app for "**/*.ts").
	if filepath.IsAbs(p.Pattern) {
		base, rest := doublestar.SplitPattern(pattern)
		if dir == "" {
			dir = filepath.FromSlash(base)
			pattern = rest
		} else if rel, err := filepath.Rel(tc.ResolvePath(dir), filepath.FromSlash(base)); err == nil && !strings.HasPrefix(rel, "..") {
			pattern = strings.TrimPrefix(filepath.ToSlash(filepath.Join(rel, rest)), "./")
		}
	}
	if !doublestar.ValidatePattern(pattern) {
		return runtime.Result{}, fmt.Errorf("invalid glob pattern %q: check its brackets and braces (examples: \"**/*.js\", \"src/**/*.{ts,tsx}\")", p.Pattern)
	}
	root := tc.ResolvePath(cmp.Or(dir, "."))
	if err := tc.CheckExternalDirectory(ctx, root, true); err != nil {
		return runtime.Result{}, err
	}
	if err := tc.Ask(ctx, permission.Request{
		Permission: "glob",
		Patterns:   []string{p.Pattern},
		Always:     []string{"*"},
		Metadata:   map[string]any{"pattern": p.Pattern, "path": p.Path},
	}); err != nil {
		return runtime.Result{}, err
	}
	if info, err := os.Stat(root); err != nil || !info.IsDir() {
		return runtime.Result{}, fmt.Errorf("search path %s is not a directory: give an existing directory, or omit path to search the project", root)
	}

	type hit struct {
		path  string
		mtime int64
	}
	var mu sync.Mutex
	var hits []hit
	links := newExternalLinks(ctx, tc, root)
	err := search.Walk(ctx, root, search.Options{Links: links}, func(_ int, e search.Entry) {
		if !search.MatchGlob(pattern, e.RelPath(), e.Name()) {
			return
		}
		var mtime int64
		path := e.Path()
		if info, err := os.Lstat(cmp.Or(e.Target(), path)); err == nil {
			mtime = info.ModTime().UnixNano()
		}
		mu.Lock()
		hits = append(hits, hit{path, mtime})
		mu.Unlock()
	})
	if err != nil {
		return runtime.Result{}, fmt.Errorf("glob %s in %s: %w", p.Pattern, root, err)
	}
	// Sort everything, then cut: the newest files are shown even when there
	// are more than the limit.
	slices.SortFunc(hits, func(a, b hit) int {
		return cmp.Or(cmp.Compare(b.mtime, a.mtime), strings.Compare(a.path, b.path))
	})
	truncated := len(hits) > globMaxResults
	shown := hits[:min(len(hits), globMaxResults)]
	var b strings.Builder
	if len(shown) == 0 {
		b.WriteString("No files found")
	}
	for i, h := range shown {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(h.path)
	}
	if truncated {
		fmt.Fprintf(&b, "\n\n(Results are truncated: showing the %d most recently modified of %d files. Consider using a more specific path or pattern.)", globMaxResults, len(hits))
	}
	meta := map[string]any{"count": len(shown), "truncated": truncated}
	if f := links.footer(); f != "" {
		b.WriteString("\n\n" + f)
		meta["skippedLinks"] = links.count()
	}
	title, err := filepath.Rel(cmp.Or(tc.Worktree, tc.Directory, root), root)
	if err != nil {
		title = root
	}
	return runtime.Result{
		Title:    title,
		Output:   b.String(),
		Metadata: meta,
	}, nil
}
