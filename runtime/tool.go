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

	// ChecksOwnPermission declares that Execute asks, through tc.Ask and on
	// every call, the permission that governs the tool (read asks "read"
	// for the path, bash "bash" for each command). The gate then leaves
	// permission to the tool. Unset — wasm, plugin and MCP-client tools,
	// and any tool that does not declare it — the gate asks the tool's own
	// permission, permission.ToolPermission(id) with pattern "*", before
	// the call runs: deny refuses, ask asks. Leaving it unset is the safe
	// default; it can only add a question. See WithOwnPermission.
	ChecksOwnPermission bool
}

// WithOwnPermission returns t with Definition.ChecksOwnPermission set, for
// tools built with Define whose handler asks its own permission:
//
//	runtime.WithOwnPermission(runtime.Define("deploy", "…", deploy))
func WithOwnPermission(t Tool) Tool {
	return ownPermission{t}
}

// ownPermission is a Tool whose definitions declare ChecksOwnPermission.
type ownPermission struct{ Tool }

func (t ownPermission) Init(ctx context.Context, ic InitContext) (*Definition, error) {
	def, err := t.Tool.Init(ctx, ic)
	if err != nil {
		return nil, err
	}
	d := *def // the tool may hand out one Definition to every caller
	d.ChecksOwnPermission = true
	return &d, nil
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

// Source says where a tool came from. Later sources override earlier ones.
type Source string

// The tool sources, in precedence order (lowest first).
const (
	SourceBuiltin Source = "builtin"
	SourceWasm    Source = "wasm"
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
