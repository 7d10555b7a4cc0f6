package builtins

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"maps"

	"github.com/toolhost/toolhost/runtime"
)

//go:embed multiedit.txt
var multieditDescription string

// multiEditParams are the multiedit tool's arguments.
type multiEditParams struct {
	FilePath string          `json:"filePath" jsonschema:"description=The absolute path to the file to modify (a relative path is resolved against the working directory)"`
	Edits    []multiEditItem `json:"edits" jsonschema:"description=Edits applied in order; each applies to the result of the previous one,minItems=1"`
}

// multiEditItem is one replacement of a multiedit call.
type multiEditItem struct {
	OldString  string `json:"oldString" jsonschema:"description=The text to replace"`
	NewString  string `json:"newString" jsonschema:"description=The text to replace it with (must be different from oldString)"`
	ReplaceAll bool   `json:"replaceAll,omitempty" jsonschema:"description=Replace all occurrences of oldString (default false)"`
}

// MultiEdit returns the multiedit tool: several edits of one file in one
// call. Unlike OpenCode's multiedit, which runs the edit tool once per edit
// and leaves the earlier edits written when a later one fails, this one is
// atomic: every edit is applied in memory first, and the file is written
// once, only when all of them apply. The error names the failing edit.
// Output and metadata are edit's, language server errors included.
func MultiEdit() runtime.Tool {
	return runtime.Declare(runtime.Define("multiedit", multieditDescription, func(ctx context.Context, p multiEditParams, tc *runtime.Context) (runtime.Result, error) {
		if p.FilePath == "" {
			return runtime.Result{}, errors.New("filePath is required")
		}
		if len(p.Edits) == 0 {
			return runtime.Result{}, errors.New("edits is empty: give at least one {oldString, newString}")
		}
		path := tc.ResolvePath(p.FilePath)
		target, err := checkWriteTarget(ctx, tc, path)
		if err != nil {
			return runtime.Result{}, err
		}
		specs := make([]editSpec, len(p.Edits))
		for i, e := range p.Edits {
			specs[i] = editSpec{Old: e.OldString, New: e.NewString, All: e.ReplaceAll}
		}
		res, err := editFile(ctx, tc, path, target, specs, true)
		if err != nil {
			return runtime.Result{}, err
		}
		d := diagnoseChanged(ctx, tc, path)
		res.Metadata = maps.Clone(res.Metadata) // the live update holds the first
		res.Metadata["diagnostics"] = d.Files
		res.Output = fmt.Sprintf("Applied %d edits successfully.", len(specs)) + fileDiagnosticsOutput(path, d)
		return res, nil
	}), multieditTraits)
}

// multieditTraits: governed by "edit", which it asks for the path itself;
// overwrites.
var multieditTraits = runtime.Traits{
	Permission:          "edit",
	ChecksOwnPermission: true,
	Hints:               &runtime.Hints{Destructive: true},
}
