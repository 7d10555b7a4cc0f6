package builtins

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"

	"github.com/toolhost/toolhost/internal/confine/fspath"
	"github.com/toolhost/toolhost/internal/confine/shellperm"
	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/permission"
)

//go:embed edit.txt
var editDescription string

// permissionEdit is the permission every tool that changes files asks for
// (edit, multiedit, write, apply_patch), with the path relative to the
// project as pattern and the unified diff in the metadata.
const permissionEdit = shellperm.PermissionEdit

// editParams are the edit tool's arguments.
type editParams struct {
	FilePath   string `json:"filePath" jsonschema:"description=The absolute path to the file to modify (a relative path is resolved against the working directory)"`
	OldString  string `json:"oldString" jsonschema:"description=The text to replace; empty to create a new file with newString as its content"`
	NewString  string `json:"newString" jsonschema:"description=The text to replace it with (must be different from oldString)"`
	ReplaceAll bool   `json:"replaceAll,omitempty" jsonschema:"description=Replace all occurrences of oldString (default false)"`
}

// Edit returns the edit tool: exact string replacement in a file, with
// OpenCode's cascade of fuzzy matchers (replacers.go) for near misses.
//
// The file keeps its line ending (LF or CRLF) and its UTF-8 byte order mark
// whatever oldString and newString use; the session must have read the file
// and it must be unchanged since; concurrent edits of one file are
// serialised; the write is atomic. Metadata: diff (unified), filepath,
// additions, deletions, replacers (which matchers found oldString),
// OpenCode's filediff (file, before, after, additions, deletions) and
// diagnostics (file path to the language servers' LSP diagnostics).
//
// After the write, the call's Diagnoser (the host's language servers) is
// asked about the file, and the output ends with its errors and those of
// up to 5 other files, as OpenCode's does (diagnostics.go).
func Edit() runtime.Tool {
	return runtime.Declare(runtime.Define("edit", editDescription, func(ctx context.Context, p editParams, tc *runtime.Context) (runtime.Result, error) {
		if p.FilePath == "" {
			return runtime.Result{}, errors.New("filePath is required")
		}
		if p.OldString == p.NewString {
			return runtime.Result{}, errSameStrings
		}
		path := tc.ResolvePath(p.FilePath)
		target, err := checkWriteTarget(ctx, tc, path)
		if err != nil {
			return runtime.Result{}, err
		}
		res, err := editFile(ctx, tc, path, target, []editSpec{{Old: p.OldString, New: p.NewString, All: p.ReplaceAll}}, false)
		if err != nil {
			return runtime.Result{}, err
		}
		d := diagnoseChanged(ctx, tc, path)
		res.Metadata = maps.Clone(res.Metadata) // the live update holds the first
		res.Metadata["diagnostics"] = d.Files
		res.Output = "Edit applied successfully." + fileDiagnosticsOutput(path, d)
		return res, nil
	}), editTraits)
}

// editTraits: governed by "edit", which it asks for the path itself; not
// offered to the models that edit with apply_patch; overwrites.
var editTraits = runtime.Traits{
	Permission:          "edit",
	ChecksOwnPermission: true,
	Available:           offeredWithoutApplyPatch,
	Hints:               &runtime.Hints{Destructive: true},
}

// editSpec is one replacement of an edit or multiedit call.
type editSpec struct {
	Old, New string
	All      bool
}

const utf8BOM = "\uFEFF"

// editFile applies edits to path in order, each on the result of the
// previous, under the file's lock; asks the edit permission with the diff;
// and writes the result atomically to target (path's checked writeTarget).
// Nothing is written unless every edit applies. numbered says errors name
// the failing edit ("edit 2 of 3").
func editFile(ctx context.Context, tc *runtime.Context, path, target string, edits []editSpec, numbered bool) (runtime.Result, error) {
	unlock, err := lockFiles(ctx, target)
	if err != nil {
		return runtime.Result{}, err
	}
	defer unlock()

	var before string
	exists := true
	info, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		exists = false
	case err != nil:
		return runtime.Result{}, fmt.Errorf("edit %s: %w", path, err)
	case info.IsDir():
		return runtime.Result{}, fmt.Errorf("Path is a directory, not a file: %s", path)
	}
	if !exists && edits[0].Old != "" {
		return runtime.Result{}, fmt.Errorf("File %s not found. Check the path, or pass an empty oldString to create it.", path)
	}
	if exists {
		if err := assertFresh(ctx, tc, path); err != nil {
			return runtime.Result{}, err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return runtime.Result{}, fmt.Errorf("edit %s: %w", path, err)
		}
		before = string(b)
	}

	after, matched, err := applyEdits(before, exists, edits)
	if err != nil {
		if numbered {
			return runtime.Result{}, err
		}
		var ee *editError
		if errors.As(err, &ee) {
			return runtime.Result{}, ee.err
		}
		return runtime.Result{}, err
	}

	rel := displayPath(tc, path)
	d := diffTexts(rel, lfText(before), lfText(after))
	patterns := filePatterns(tc, path)
	if err := tc.Ask(ctx, permission.Request{
		Permission: permissionEdit,
		Patterns:   patterns,
		Always:     alwaysForEach(patterns, false),
		Metadata:   map[string]any{"filepath": path, "diff": d.Unified},
	}); err != nil {
		return runtime.Result{}, err
	}
	if err := writeFileAtomic(projectDir(tc), target, []byte(after)); err != nil {
		return runtime.Result{}, err
	}
	if err := recordRead(ctx, tc, path); err != nil {
		return runtime.Result{}, err
	}
	meta := map[string]any{
		"filepath":  path,
		"diff":      d.Unified,
		"additions": d.Additions,
		"deletions": d.Deletions,
		"created":   !exists,
		"replacers": matched,
		"filediff":  fileDiffMeta(path, lfText(before), lfText(after), d),
		// Filled in by the caller once the language servers have answered.
		"diagnostics": map[string][]runtime.Diagnostic{},
	}
	tc.Metadata(rel, meta)
	return runtime.Result{Title: rel, Metadata: meta}, nil
}

// editError names the edit of a multiedit call that failed.
type editError struct {
	index, total int
	err          error
}

func (e *editError) Error() string {
	return fmt.Sprintf("edit %d of %d failed (no edit was applied, the file is unchanged): %v", e.index+1, e.total, e.err)
}

func (e *editError) Unwrap() error { return e.err }

// applyEdits applies edits to the raw file text before (BOM, CRLF and all)
// and returns the raw new text and the name of the replacer each edit used.
// oldString and newString are brought to the file's line ending, and a BOM
// in them is dropped; the file's own BOM is kept. An empty oldString is only
// allowed first: it creates the file (or replaces the whole text of an
// existing one) with newString.
func applyEdits(before string, exists bool, edits []editSpec) (string, []string, error) {
	bom := strings.HasPrefix(before, utf8BOM)
	body := strings.TrimPrefix(before, utf8BOM)
	eol := fileEOL(body)
	matched := make([]string, 0, len(edits))
	for i, e := range edits {
		if e.Old == e.New {
			return "", nil, &editError{i, len(edits), errSameStrings}
		}
		if e.Old == "" {
			if i > 0 {
				return "", nil, &editError{i, len(edits), errors.New("oldString is empty; only the first edit may create the file")}
			}
			if !exists {
				// A new file is written exactly as given: there is no line
				// ending or BOM of the file to keep yet.
				body, bom = e.New, false
				if strings.HasPrefix(body, utf8BOM) {
					body, bom = strings.TrimPrefix(body, utf8BOM), true
				}
			} else {
				body = toEOL(e.New, eol)
			}
			matched = append(matched, "create")
			continue
		}
		out, by, err := replace(body, toEOL(e.Old, eol), toEOL(e.New, eol), e.All)
		if err != nil {
			return "", nil, &editError{i, len(edits), err}
		}
		body = out
		matched = append(matched, by)
	}
	if bom {
		body = utf8BOM + body
	}
	return body, matched, nil
}

// fileEOL is the line ending a file's text keeps: CRLF when it has any,
// else LF. One CRLF is enough, because a file a Windows editor saved with a
// stray LF is still a CRLF file to its owner.
func fileEOL(body string) string {
	if strings.Contains(body, "\r\n") {
		return "\r\n"
	}
	return "\n"
}

// toEOL drops a BOM from s and gives it line ending eol.
func toEOL(s, eol string) string {
	s = strings.ReplaceAll(strings.TrimPrefix(s, utf8BOM), "\r\n", "\n")
	if eol == "\r\n" {
		s = strings.ReplaceAll(s, "\n", "\r\n")
	}
	return s
}

// lfText is s without BOM and with LF line endings, for diffs a person
// reads.
func lfText(s string) string {
	return strings.ReplaceAll(strings.TrimPrefix(s, utf8BOM), "\r\n", "\n")
}

// displayPath is path relative to the project (slash-separated), or the
// absolute path when it lies outside: the form used in titles and in
// permission patterns, so users write rules such as "src/**".
func displayPath(tc *runtime.Context, path string) string {
	root := tc.Worktree
	if root == "" {
		root = tc.Directory
	}
	if root == "" {
		return path
	}
	rel, err := fspath.Rel(root, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return path
	}
	return filepath.ToSlash(rel)
}
