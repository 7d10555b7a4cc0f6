package builtins

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/toolhost/toolhost/runtime"
)

// Diagnostic report limits, as OpenCode's: errors shown per file, and
// other files with errors shown besides the ones changed.
const (
	lspMaxPerFile    = 20
	lspMaxOtherFiles = 5
)

// diagnoseChanged asks the call's Diagnoser (the host's language servers)
// about files just written; without one the result is empty. It runs
// after the file locks are released, so a slow server delays only this
// call's answer.
func diagnoseChanged(ctx context.Context, tc *runtime.Context, files ...string) runtime.Diagnostics {
	if tc.Diagnoser == nil {
		return runtime.Diagnostics{Files: map[string][]runtime.Diagnostic{}}
	}
	root := tc.Worktree
	if root == "" {
		root = tc.Directory
	}
	d := tc.Diagnoser.Diagnose(ctx, root, files)
	if d.Files == nil {
		d.Files = map[string][]runtime.Diagnostic{}
	}
	for _, n := range d.Notes {
		tc.Logger.Warn("language server", "note", n)
	}
	return d
}

// diagnosticsReport is OpenCode's report of one file's errors (severity
// 1): a <diagnostics file="..."> block of up to lspMaxPerFile lines
// "ERROR [line:col] message" (1-based), with "... and N more" past the
// limit; "" when the file has no errors. Duplicates (same range and
// message) are shown once.
func diagnosticsReport(file string, ds []runtime.Diagnostic) string {
	type k struct {
		r   runtime.DiagnosticRange
		msg string
	}
	seen := map[k]bool{}
	var lines []string
	total := 0
	for _, d := range ds {
		if d.Severity != 1 {
			continue
		}
		if seen[k{d.Range, d.Message}] {
			continue
		}
		seen[k{d.Range, d.Message}] = true
		total++
		if len(lines) < lspMaxPerFile {
			lines = append(lines, fmt.Sprintf("ERROR [%d:%d] %s", d.Range.Start.Line+1, d.Range.Start.Character+1, d.Message))
		}
	}
	if total == 0 {
		return ""
	}
	suffix := ""
	if more := total - len(lines); more > 0 {
		suffix = fmt.Sprintf("\n... and %d more", more)
	}
	return fmt.Sprintf("<diagnostics file=%q>\n%s%s\n</diagnostics>", file, strings.Join(lines, "\n"), suffix)
}

// fileDiagnosticsOutput is what edit, multiedit and write append to their
// output, as OpenCode's write does: the file's errors, then errors in up
// to lspMaxOtherFiles other files (by path), then the notes.
func fileDiagnosticsOutput(file string, d runtime.Diagnostics) string {
	var b strings.Builder
	if block := diagnosticsReport(file, d.Files[file]); block != "" {
		b.WriteString("\n\nLSP errors detected in this file, please fix:\n" + block)
	}
	writeOtherFiles(&b, d, []string{file})
	writeNotes(&b, d)
	return b.String()
}

// patchDiagnosticsOutput is what apply_patch appends, as OpenCode's does:
// per changed file (targets, absolute, with their display names) its
// errors, then errors in up to lspMaxOtherFiles other files, then the
// notes.
func patchDiagnosticsOutput(targets []string, names map[string]string, d runtime.Diagnostics) string {
	var b strings.Builder
	for _, t := range targets {
		if block := diagnosticsReport(t, d.Files[t]); block != "" {
			fmt.Fprintf(&b, "\n\nLSP errors detected in %s, please fix:\n%s", names[t], block)
		}
	}
	writeOtherFiles(&b, d, targets)
	writeNotes(&b, d)
	return b.String()
}

func writeOtherFiles(b *strings.Builder, d runtime.Diagnostics, changed []string) {
	shown := 0
	for _, f := range slices.Sorted(maps.Keys(d.Files)) {
		if shown == lspMaxOtherFiles {
			break
		}
		if slices.Contains(changed, f) {
			continue
		}
		if block := diagnosticsReport(f, d.Files[f]); block != "" {
			b.WriteString("\n\nLSP errors detected in other files:\n" + block)
			shown++
		}
	}
}

func writeNotes(b *strings.Builder, d runtime.Diagnostics) {
	for _, n := range d.Notes {
		b.WriteString("\n\nNote: " + n)
	}
}
