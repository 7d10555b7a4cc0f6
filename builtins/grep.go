package builtins

import (
	"cmp"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/toolhost/toolhost/internal/engines/search"
	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/permission"
)

//go:embed grep.txt
var grepDescription string

// grepMaxMatches is how many matching lines grep shows; the count covers
// all of them.
const grepMaxMatches = 100

// grepParams are the grep tool's arguments.
type grepParams struct {
	Pattern string `json:"pattern" jsonschema:"description=The regex pattern to search for in file contents"`
	Path    string `json:"path,omitempty" jsonschema:"description=The directory to search in. Defaults to the current working directory."`
	Include string `json:"include,omitempty" jsonschema:"description=File pattern to include in the search (e.g. \"*.js\", \"*.{ts,tsx}\")"`
}

// Grep returns the grep tool: a regular-expression search over file
// contents, natively in Go (internal/engines/search: the tree walked in parallel
// honouring .gitignore, files searched on the walking goroutines), showing
// up to 100 matching lines, newest files first.
func Grep() runtime.Tool {
	return runtime.Declare(runtime.Define("grep", grepDescription, runGrep), grepTraits)
}

// grepTraits: asks "grep" for the pattern itself; changes nothing.
var grepTraits = runtime.Traits{ChecksOwnPermission: true, Hints: &runtime.Hints{ReadOnly: true, Idempotent: true}}

func runGrep(ctx context.Context, p grepParams, tc *runtime.Context) (runtime.Result, error) {
	if p.Pattern == "" {
		return runtime.Result{}, errors.New("pattern is required: give the regular expression to search for")
	}
	m, err := search.Compile(p.Pattern)
	if err != nil {
		return runtime.Result{}, err
	}
	if p.Include != "" && !doublestar.ValidatePattern(p.Include) {
		return runtime.Result{}, fmt.Errorf("invalid include pattern %q: check its brackets and braces (example: \"*.{ts,tsx}\")", p.Include)
	}
	root := tc.ResolvePath(cmp.Or(p.Path, "."))
	if err := tc.CheckExternalDirectory(ctx, root, true); err != nil {
		return runtime.Result{}, err
	}
	if err := tc.Ask(ctx, permission.Request{
		Permission: "grep",
		Patterns:   []string{p.Pattern},
		Always:     []string{"*"},
		Metadata:   map[string]any{"pattern": p.Pattern, "path": p.Path, "include": p.Include},
	}); err != nil {
		return runtime.Result{}, err
	}
	links := newExternalLinks(ctx, tc, root)
	res, err := search.Grep(ctx, root, m, search.GrepOptions{Include: p.Include, Links: links, MaxLines: grepMaxMatches})
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return runtime.Result{}, fmt.Errorf("search path %s does not exist: give an existing directory, or omit path to search the project", root)
		}
		return runtime.Result{}, fmt.Errorf("grep %s: %w", root, err)
	}
	keptBack := keepReadable(res, newOutrightReads(ctx, tc))
	out := grepResult(res, p.Pattern)
	if keptBack > 0 {
		out.Output += fmt.Sprintf("\n\n(Left out the matches in %d %s the read rules do not allow without asking; read one with the read tool to be asked.)", keptBack, plural(keptBack, "file", "files"))
		out.Metadata["keptBack"] = keptBack
	}
	if f := links.footer(); f != "" {
		out.Output += "\n\n" + f
		out.Metadata["skippedLinks"] = links.count()
	}
	return out, nil
}

// keepReadable drops the files the read rules keep back (outrightReads)
// and takes their matches out of the count — a count that moved with a
// denied file's content would tell it, one grep at a time — and returns how
// many files it dropped. Only matching files are judged, so a search whose
// rules allow every path pays nothing.
func keepReadable(r *search.Results, reads *outrightReads) int {
	if reads.ok && reads.every {
		return 0
	}
	kept, dropped := r.Files[:0], 0
	for _, f := range r.Files {
		if f.Info == nil || !reads.allowedAt(f.Path, f.Target, f.Info) {
			r.Total -= f.Count
			dropped++
			continue
		}
		kept = append(kept, f)
	}
	r.Files = kept
	return dropped
}

// grepResult renders the search the way OpenCode's grep tool does.
func grepResult(r *search.Results, pattern string) runtime.Result {
	if r.Total == 0 {
		return runtime.Result{
			Title:    pattern,
			Output:   "No files found",
			Metadata: map[string]any{"matches": 0, "truncated": false, "uniqueFiles": 0},
		}
	}
	truncated := r.Total > grepMaxMatches
	var b strings.Builder
	fmt.Fprintf(&b, "Found %d matches", r.Total)
	if truncated {
		fmt.Fprintf(&b, " (showing first %d)", grepMaxMatches)
	}
	b.WriteByte('\n')
	shown := 0
	for i, f := range r.Files {
		if shown == grepMaxMatches {
			break
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%s:\n", f.Path)
		for _, l := range f.Lines {
			if shown == grepMaxMatches {
				break
			}
			fmt.Fprintf(&b, "  Line %d: %s\n", l.Num, l.Text)
			shown++
		}
	}
	if truncated {
		fmt.Fprintf(&b, "\n(Results truncated: showing %d of %d matches (%d hidden). Consider using a more specific path or pattern.)\n",
			grepMaxMatches, r.Total, r.Total-grepMaxMatches)
	}
	if r.Skipped > 0 {
		b.WriteString("\n(Some paths were inaccessible and skipped)\n")
	}
	return runtime.Result{
		Title:    pattern,
		Output:   strings.TrimSuffix(b.String(), "\n"),
		Metadata: map[string]any{"matches": r.Total, "truncated": truncated, "uniqueFiles": len(r.Files)},
	}
}
