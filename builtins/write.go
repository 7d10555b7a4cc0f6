package builtins

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/permission"
)

//go:embed write.txt
var writeDescription string

// writeParams are the write tool's arguments.
type writeParams struct {
	FilePath string `json:"filePath" jsonschema:"description=The absolute path to the file to write (a relative path is resolved against the working directory)"`
	Content  string `json:"content" jsonschema:"description=The content to write to the file"`
}

// Write returns the write tool: create a file or replace its whole content.
//
// Overwriting keeps what the model cannot see in the read tool's output
// (keepFileForm): the file's UTF-8 byte order mark, and its line ending
// when the new content consistently uses the other one, as edit does.
// A new file is written exactly as given.
//
// An existing file is only overwritten when this session has read it and it
// has not changed since (modification time and size), so the model never
// clobbers text it has not seen. Parent directories are created; the write
// is atomic (temporary file and rename) and keeps the file's mode. The edit
// permission is asked with the unified diff, so a person sees the change.
// Metadata: filepath, exists, diff, additions, deletions, filediff,
// diagnostics. As edit does, the output ends with the language servers'
// errors for the file and up to 5 others (diagnostics.go).
func Write() runtime.Tool {
	return runtime.Declare(runtime.Define("write", writeDescription, func(ctx context.Context, p writeParams, tc *runtime.Context) (runtime.Result, error) {
		if p.FilePath == "" {
			return runtime.Result{}, errors.New("filePath is required")
		}
		path := tc.ResolvePath(p.FilePath)
		target, err := checkWriteTarget(ctx, tc, path)
		if err != nil {
			return runtime.Result{}, err
		}
		unlock, err := lockFiles(ctx, target)
		if err != nil {
			return runtime.Result{}, err
		}
		defer func() { unlock() }()

		var before string
		exists := false
		info, err := os.Stat(path)
		switch {
		case err == nil && info.IsDir():
			return runtime.Result{}, fmt.Errorf("Path is a directory, not a file: %s", path)
		case err == nil:
			exists = true
			if err := assertFresh(ctx, tc, path); err != nil {
				return runtime.Result{}, err
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return runtime.Result{}, fmt.Errorf("write %s: read current content: %w", path, err)
			}
			before = string(b)
		case !errors.Is(err, fs.ErrNotExist):
			return runtime.Result{}, fmt.Errorf("write %s: %w", path, err)
		}

		rel := displayPath(tc, path)
		d := diffTexts(rel, lfText(before), lfText(p.Content))
		patterns := filePatterns(tc, path)
		if err := tc.Ask(ctx, permission.Request{
			Permission: permissionEdit,
			Patterns:   patterns,
			Always:     alwaysForEach(patterns, false),
			Metadata:   map[string]any{"filepath": path, "diff": d.Unified, "exists": exists},
		}); err != nil {
			return runtime.Result{}, err
		}
		content := p.Content
		if exists {
			content = keepFileForm(before, content)
		}
		if err := writeFileAtomic(projectDir(tc), target, []byte(content)); err != nil {
			return runtime.Result{}, err
		}
		if err := recordRead(ctx, tc, path); err != nil {
			return runtime.Result{}, err
		}
		unlock()
		unlock = func() {}
		diags := diagnoseChanged(ctx, tc, path)
		return runtime.Result{
			Title:  rel,
			Output: "Wrote file successfully." + fileDiagnosticsOutput(path, diags),
			Metadata: map[string]any{
				"filepath":    path,
				"exists":      exists,
				"diff":        d.Unified,
				"additions":   d.Additions,
				"deletions":   d.Deletions,
				"filediff":    fileDiffMeta(path, lfText(before), lfText(content), d),
				"diagnostics": diags.Files,
			},
		}, nil
	}), writeTraits)
}

// writeTraits: governed by "edit", so one rule covers every way of changing
// a file, which it asks for the path itself; not offered to the models that
// edit with apply_patch; overwrites.
var writeTraits = runtime.Traits{
	Permission:          "edit",
	ChecksOwnPermission: true,
	Available:           offeredWithoutApplyPatch,
	Hints:               &runtime.Hints{Destructive: true},
}

// keepFileForm gives content, which replaces the file text before, the
// file's form: its UTF-8 BOM when it had one, and its line ending (fileEOL,
// as edit keeps it) when content consistently uses the other. Content
// that mixes LF and CRLF, or has no line break, keeps its own: nothing says
// which one was meant. A file without a line break has no ending to keep.
func keepFileForm(before, content string) string {
	bom := strings.HasPrefix(before, utf8BOM) || strings.HasPrefix(content, utf8BOM)
	body := strings.TrimPrefix(before, utf8BOM)
	text := strings.TrimPrefix(content, utf8BOM)
	if strings.Contains(body, "\n") {
		if want, got := fileEOL(body), consistentEOL(text); got != "" && got != want {
			text = toEOL(text, want)
		}
	}
	if bom {
		return utf8BOM + text
	}
	return text
}

// consistentEOL is the line ending every line break of s uses, or "" when
// s has none or mixes LF and CRLF.
func consistentEOL(s string) string {
	lf, crlf := strings.Count(s, "\n"), strings.Count(s, "\r\n")
	switch {
	case lf == 0:
		return ""
	case crlf == lf:
		return "\r\n"
	case crlf == 0:
		return "\n"
	}
	return ""
}
