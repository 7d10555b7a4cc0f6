package builtins

import (
	"cmp"
	"context"
	_ "embed"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/toolhost/toolhost/internal/engines/search"
	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/permission"
)

//go:embed list.txt
var listDescription string

// listMaxFiles is how many files list shows.
const listMaxFiles = 100

// listDefaultIgnores are directory names list never enters: dependency,
// build, cache and editor folders that would drown the project's own files.
var listDefaultIgnores = []string{
	"node_modules", "__pycache__", ".git", "dist", "build", "target", "vendor",
	"bin", "obj", ".idea", ".vscode", ".zig-cache", "zig-out", ".coverage",
	"coverage", "tmp", "temp", ".cache", "cache", "logs", ".venv", "venv", "env",
}

// listParams are the list tool's arguments.
type listParams struct {
	Path   string   `json:"path,omitempty" jsonschema:"description=The absolute path to the directory to list (must be absolute, not relative)"`
	Ignore []string `json:"ignore,omitempty" jsonschema:"description=List of glob patterns to ignore"`
}

// List returns the list tool: a tree of a directory's files, with common
// build and dependency folders and .gitignore'd files left out.
func List() runtime.Tool {
	return runtime.Declare(runtime.Define("list", listDescription, runList), listTraits)
}

// listTraits: asks "list" for the directory itself; changes nothing.
var listTraits = runtime.Traits{ChecksOwnPermission: true, Hints: &runtime.Hints{ReadOnly: true, Idempotent: true}}

func runList(ctx context.Context, p listParams, tc *runtime.Context) (runtime.Result, error) {
	for _, g := range p.Ignore {
		if !doublestar.ValidatePattern(strings.TrimSuffix(g, "/")) {
			return runtime.Result{}, fmt.Errorf("invalid ignore pattern %q: check its brackets and braces (examples: \"*.log\", \"docs/**\")", g)
		}
	}
	root := tc.ResolvePath(cmp.Or(p.Path, "."))
	if err := tc.CheckExternalDirectory(ctx, root, true); err != nil {
		return runtime.Result{}, err
	}
	if err := tc.Ask(ctx, permission.Request{
		Permission: "list",
		Patterns:   []string{root},
		Always:     alwaysFor(root, true),
		Metadata:   map[string]any{"path": root},
	}); err != nil {
		return runtime.Result{}, err
	}
	if info, err := os.Stat(root); err != nil || !info.IsDir() {
		return runtime.Result{}, fmt.Errorf("%s is not a directory: give an existing directory, or omit path to list the project", root)
	}

	skip := func(rel, name string, isDir bool) bool {
		if isDir && slices.Contains(listDefaultIgnores, name) {
			return true
		}
		for _, g := range p.Ignore {
			dirOnly := strings.HasSuffix(g, "/")
			g = strings.TrimSuffix(g, "/")
			if (!dirOnly || isDir) && (search.MatchGlob(g, rel, name) || doublestar.MatchUnvalidated(g, rel)) {
				return true
			}
		}
		return false
	}
	var mu sync.Mutex
	var files []string
	links := newExternalLinks(ctx, tc, root)
	if err := search.Walk(ctx, root, search.Options{Skip: skip, Links: links}, func(_ int, e search.Entry) {
		mu.Lock()
		files = append(files, e.RelPath())
		mu.Unlock()
	}); err != nil {
		return runtime.Result{}, fmt.Errorf("list %s: %w", root, err)
	}
	// Keep the shallowest files when cutting, so a big subdirectory cannot
	// hide the shape of the top of the tree; the order is deterministic.
	slices.SortFunc(files, func(a, b string) int {
		return cmp.Or(cmp.Compare(strings.Count(a, "/"), strings.Count(b, "/")), strings.Compare(a, b))
	})
	total := len(files)
	truncated := total > listMaxFiles
	files = files[:min(total, listMaxFiles)]

	tree := newListTree(files)
	var b strings.Builder
	b.WriteString(strings.TrimSuffix(root, string(filepath.Separator)) + "/\n")
	tree.render(&b, ".", 0)
	if truncated {
		fmt.Fprintf(&b, "\n(Showing %d of %d files. Use a more specific path or the ignore parameter to see the rest.)\n", listMaxFiles, total)
	}
	meta := map[string]any{"count": len(files), "truncated": truncated, "directories": tree.count()}
	if f := links.footer(); f != "" {
		b.WriteString("\n" + f + "\n")
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

// listTree is the directories and files to render, keyed by slash paths
// relative to the root ("." is the root).
type listTree struct {
	dirs  map[string][]string // directory → subdirectories (only those holding shown files)
	files map[string][]string // directory → file names
}

func newListTree(rels []string) *listTree {
	t := &listTree{dirs: map[string][]string{}, files: map[string][]string{}}
	known := map[string]bool{".": true}
	for _, rel := range rels {
		dir := path.Dir(rel)
		t.files[dir] = append(t.files[dir], path.Base(rel))
		for d := dir; !known[d]; d = path.Dir(d) {
			known[d] = true
			parent := path.Dir(d)
			t.dirs[parent] = append(t.dirs[parent], d)
		}
	}
	return t
}

// render writes dir's subdirectories (each followed by its contents) and
// then its files, sorted, indented two spaces per level.
func (t *listTree) render(b *strings.Builder, dir string, depth int) {
	if depth > 0 {
		fmt.Fprintf(b, "%s%s/\n", strings.Repeat("  ", depth), path.Base(dir))
	}
	subs := slices.Sorted(slices.Values(t.dirs[dir]))
	for _, d := range subs {
		t.render(b, d, depth+1)
	}
	indent := strings.Repeat("  ", depth+1)
	for _, f := range slices.Sorted(slices.Values(t.files[dir])) {
		b.WriteString(indent + f + "\n")
	}
}

// count is the number of directories in the tree, the root included.
func (t *listTree) count() int {
	n := 1
	for _, subs := range t.dirs {
		n += len(subs)
	}
	return n
}
