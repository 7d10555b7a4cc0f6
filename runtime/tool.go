package runtime

import (
	"context"
	"encoding/json"

	"github.com/toolhost/toolhost/runtime/permission"
)

// Tool is anything an agent can call. Init is called once per agent (and
// model) that will use the tool, so a tool can adapt its description — the
// skill tool lists only the skills that agent may load.
type Tool interface {
	ID() string
	Init(ctx context.Context, ic InitContext) (*Definition, error)
}

// InitContext tells a tool who will use it.
type InitContext struct {
	Agent *Agent // never nil when called by the Registry
	Model string // model id, "" when unknown
}

// ExecuteFunc runs one call. args has been validated against Parameters.
//
// Problems the model can fix (a missing file, an ambiguous edit) are returned
// as errors too; the wrapper turns every error into a tool-error result the
// model sees. Permission errors from tc.Ask should be returned unchanged so
// callers can tell denial, rejection and correction apart.
type ExecuteFunc func(ctx context.Context, args json.RawMessage, tc *Context) (Result, error)

// Definition is an initialised tool.
type Definition struct {
	Description string          // text for the model
	Parameters  json.RawMessage // JSON Schema of the arguments (an object schema)
	Execute     ExecuteFunc

	// FormatValidationError, when set, replaces the wrapper's standard
	// message for arguments that fail the schema.
	FormatValidationError func(err *ValidationError) string

	// TruncateTail keeps the end of long output instead of the start.
	TruncateTail bool
}

// Result is what a call returns.
type Result struct {
	Title       string         `json:"title"`
	Output      string         `json:"output"`
	Metadata    map[string]any `json:"metadata"`
	Attachments []Attachment   `json:"attachments"`
}

// Attachment is a file returned beside the output: an image or PDF for a
// multimodal model. URL is a data: URL or a file path.
type Attachment struct {
	MIME     string `json:"mime"`
	URL      string `json:"url"`
	Filename string `json:"filename,omitempty"`
}

// PermissionRequest is what a tool passes to Context.Ask.
type PermissionRequest = permission.Request

// Source says where a tool came from. The registry keeps each source's
// tools apart, and an id names the tool of the highest-precedence source
// holding it (see Registry.Add).
type Source string

// The tool sources, in precedence order (lowest first): a runtime
// registration beats an MCP server's tool, which beats a plugin's, a
// Python tool file's, a JS tool file's, a wasm module's, then a built-in.
const (
	SourceBuiltin Source = "builtin"
	SourceWasm    Source = "wasm"
	SourceJS      Source = "js"
	SourcePython  Source = "python"
	SourcePlugin  Source = "plugin"
	SourceMCP     Source = "mcp"
	SourceRuntime Source = "runtime"
)

// ToolFunc is a Tool made of an id and an init function.
type ToolFunc struct {
	Name     string
	InitFunc func(ctx context.Context, ic InitContext) (*Definition, error)
}

// ID returns t.Name.
func (t ToolFunc) ID() string { return t.Name }

// Init calls t.InitFunc.
func (t ToolFunc) Init(ctx context.Context, ic InitContext) (*Definition, error) {
	return t.InitFunc(ctx, ic)
}

var _ Tool = ToolFunc{}

// LoadError is a tool source that failed to load and was skipped: a wasm
// module, a plugin, an MCP server. Everything else still loads.
type LoadError struct {
	Source Source `json:"source"`
	// File is the module, plugin folder, lock file or MCP server name.
	File string `json:"file"`
	// Reason says what is wrong, and how to fix it when that is known.
	Reason string `json:"reason"`
}

func (e LoadError) Error() string { return e.File + ": " + e.Reason }

func (e LoadError) String() string { return e.Error() }
