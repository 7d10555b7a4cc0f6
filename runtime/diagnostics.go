package runtime

import (
	"context"
	"encoding/json"
)

// Diagnoser gives the tools that change files a language server's view of
// them, as OpenCode reports the server's errors after edit, write and
// apply_patch. A host sets it (Options.Diagnoser); the edit tools find it
// in their Context, and without one they report nothing.
//
// Diagnose never fails the edit that asked: a server that is missing,
// crashes or stays silent costs at most a note, and the wait is bounded.
type Diagnoser interface {
	// Diagnose tells the language servers of the project at root that
	// files (absolute paths) have changed (or were deleted), waits a
	// bounded time for their diagnostics, and returns what the servers
	// know of the project's files then.
	Diagnose(ctx context.Context, root string, files []string) Diagnostics
}

// Diagnostics is what a Diagnoser found.
type Diagnostics struct {
	// Files maps absolute file paths to their diagnostics, every
	// severity, as the servers published them: the "diagnostics"
	// metadata of OpenCode's edit tools.
	Files map[string][]Diagnostic
	// Notes are problems with the servers a person or model should know
	// of (one failed to start, one crashed); each is reported once.
	Notes []string
}

// Diagnostic is an LSP Diagnostic, in the protocol's JSON shape (0-based
// positions) so clients built for OpenCode's events can render it.
type Diagnostic struct {
	Range    DiagnosticRange `json:"range"`
	Severity int             `json:"severity,omitempty"` // 1 error, 2 warning, 3 information, 4 hint
	Code     json.RawMessage `json:"code,omitempty"`
	Source   string          `json:"source,omitempty"`
	Message  string          `json:"message"`
}

// DiagnosticRange is an LSP Range.
type DiagnosticRange struct {
	Start DiagnosticPosition `json:"start"`
	End   DiagnosticPosition `json:"end"`
}

// DiagnosticPosition is an LSP Position: 0-based line and UTF-16 column.
type DiagnosticPosition struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}
