package builtins

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync"

	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/permission"
)

// lspToolName is the lsp tool's id and the permission it asks (the pattern
// is the file's path relative to the project).
const lspToolName = "lsp"

//go:embed lsp.txt
var lspDescriptionTemplate string

var lspDescription = sync.OnceValue(func() string {
	return renderDescription("lsp", lspDescriptionTemplate, map[string]any{
		"MaxPerFile": lspMaxPerFile, "MaxOtherFiles": lspMaxOtherFiles,
	})
})

// lspParams are the lsp tool's arguments.
type lspParams struct {
	FilePath string `json:"filePath" jsonschema:"description=The file to check (absolute or relative to the working directory)"`
}

// LSP returns the lsp tool: it asks the host's language servers (the
// call's Diagnoser, the same servers the edit tools use) about a file and
// reports up to 20 errors for it and for up to 5 other files, in the form
// the edit tools append. The registry offers it only with
// experimental.lsp_tool. A call asks permission lsp for the file (and
// external_directory outside the project).
// Result metadata: errors (count for the file), diagnostics (per file,
// LSP diagnostics of every severity).
func LSP() runtime.Tool {
	return runtime.Declare(runtime.DefineDynamic(lspToolName, described(lspDescription), func(ctx context.Context, p lspParams, tc *runtime.Context) (runtime.Result, error) {
		if p.FilePath == "" {
			return runtime.Result{}, errors.New("filePath is empty; pass the file to check")
		}
		path := tc.ResolvePath(p.FilePath)
		if err := tc.CheckExternalDirectory(ctx, path, false); err != nil {
			return runtime.Result{}, err
		}
		if tc.Diagnoser == nil {
			return runtime.Result{}, errors.New("this host runs no language servers; the lsp tool needs a host built with them (toolhost's CLI and MCP server are)")
		}
		rel := displayPath(tc, path)
		if err := tc.Ask(ctx, permission.Request{Permission: lspToolName, Patterns: []string{rel}, Always: []string{"*"}, Metadata: map[string]any{"filePath": path}}); err != nil {
			return runtime.Result{}, err
		}
		d := diagnoseChanged(ctx, tc, path)
		if _, ok := d.Files[path]; !ok && len(d.Notes) == 0 {
			return runtime.Result{}, fmt.Errorf("no language server reported on %s: none for %s files is on PATH or configured; add one: \"lsp\": {\"mine\": {\"command\": [\"my-server\", \"--stdio\"], \"extensions\": [%q]}}", rel, filepath.Ext(path), filepath.Ext(path))
		}
		count := 0
		for _, x := range d.Files[path] {
			if x.Severity == 1 {
				count++
			}
		}
		out := fmt.Sprintf("No errors reported in %s.", rel)
		if count > 0 {
			out = "This file has errors, please fix:\n" + diagnosticsReport(path, d.Files[path])
		}
		out += fileDiagnosticsOutput(path, runtime.Diagnostics{Files: otherFiles(d.Files, path), Notes: d.Notes})
		return runtime.Result{Title: rel, Output: out, Metadata: map[string]any{"errors": count, "diagnostics": d.Files}}, nil
	}), lspTraits)
}

// otherFiles is files without path.
func otherFiles(files map[string][]runtime.Diagnostic, path string) map[string][]runtime.Diagnostic {
	out := map[string][]runtime.Diagnostic{}
	for f, ds := range files {
		if f != path {
			out[f] = slices.Clone(ds)
		}
	}
	return out
}

// lspTraits: asks "lsp" for the file itself; offered only with
// experimental.lsp_tool; changes nothing.
var lspTraits = runtime.Traits{
	ChecksOwnPermission: true,
	Available: func(env runtime.Env) error {
		if !env.Config.Experimental.LSPTool {
			return runtime.NotOffered("the lsp tool is experimental and off", `"experimental": {"lsp_tool": true}`)
		}
		return nil
	},
	Hints: &runtime.Hints{ReadOnly: true, Idempotent: true},
}
