package tool

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
)

// Result is what a tool returns. Output is the text the model sees; Title
// is a short label for people; Metadata is structured data for front ends.
type Result struct {
	Output      string         `json:"output"`
	Title       string         `json:"title,omitempty"`
	Metadata    map[string]any `json:"metadata,omitempty"`
	Attachments []Attachment   `json:"attachments,omitempty"`
}

// Attachment is a file returned beside the output (an image for a
// multimodal model). URL is a data: URL.
type Attachment struct {
	MIME     string `json:"mime"`
	URL      string `json:"url"`
	Filename string `json:"filename,omitempty"`
}

// Text is a Result with only output text.
func Text(output string) Result { return Result{Output: output} }

// Handler runs one call of a tool whose arguments decode into A.
type Handler[A any] func(ctx *Context, args A) (Result, error)

type registered struct {
	description string
	schema      []byte
	execute     func(ctx *Context, raw json.RawMessage) (Result, error)
}

// tools holds every tool defined by this module, by name; "" is the main
// tool. It is filled by package initialisers before the host calls any
// export, and never changes afterwards.
var tools = map[string]*registered{}

// Define registers a tool. name is the tool's suffix: in jira.wasm,
// Define("create", …) becomes the tool jira_create. The name "" (or Main)
// defines the tool named after the file itself, jira.
//
// The JSON Schema of the arguments is generated from A (see SchemaOf), and
// arguments are decoded into A before fn runs. Call Define from a package
// variable or init function, and run `go generate` (toolhost-gen) so the
// module exports the functions the host looks for. It returns the name so
// it can be used in a var declaration: var _ = tool.Define(…).
func Define[A any](name, description string, fn Handler[A]) string {
	if _, dup := tools[name]; dup {
		panic(fmt.Sprintf("toolhost: tool %q defined twice", name))
	}
	schema, err := json.Marshal(SchemaOf(reflect.TypeFor[A]()))
	if err != nil {
		panic(fmt.Sprintf("toolhost: schema of %q: %v", name, err))
	}
	tools[name] = &registered{
		description: description,
		schema:      schema,
		execute: func(ctx *Context, raw json.RawMessage) (Result, error) {
			var args A
			if len(raw) > 0 && string(raw) != "null" {
				if err := json.Unmarshal(raw, &args); err != nil {
					return Result{}, fmt.Errorf("decode arguments: %w", err)
				}
			}
			return fn(ctx, args)
		},
	}
	return name
}

// Main registers the module's main tool, named after the .wasm file.
func Main[A any](description string, fn Handler[A]) string {
	return Define("", description, fn)
}

// Names lists the defined tools, main tool ("") first.
func Names() []string {
	out := make([]string, 0, len(tools))
	for n := range tools {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func lookup(name string) (*registered, bool) {
	t, ok := tools[name]
	if !ok {
		setError(fmt.Sprintf("toolhost: tool %q is exported but not defined; run go generate after changing tool.Define calls", name))
	}
	return t, ok
}

// ExportDescription implements the description export of tool name. It is
// called by the code toolhost-gen generates; tool authors do not call it.
func ExportDescription(name string) int32 {
	t, ok := lookup(name)
	if !ok {
		return 1
	}
	setOutput([]byte(t.description))
	return 0
}

// ExportSchema implements the schema export of tool name (generated code).
func ExportSchema(name string) int32 {
	t, ok := lookup(name)
	if !ok {
		return 1
	}
	setOutput(t.schema)
	return 0
}

// input is the JSON the host passes to execute (docs/abi.md).
type input struct {
	Args    json.RawMessage `json:"args"`
	Context struct {
		SessionID string         `json:"sessionID"`
		MessageID string         `json:"messageID"`
		Agent     string         `json:"agent"`
		CallID    string         `json:"callID"`
		Extra     map[string]any `json:"extra"`
	} `json:"context"`
}

// ExportExecute implements the execute export of tool name (generated
// code): it decodes the input, runs the handler and sets the output or
// the error. A panic in the handler becomes an error, not a trap, so the
// model sees what went wrong.
func ExportExecute(name string) (rc int32) {
	t, ok := lookup(name)
	if !ok {
		return 1
	}
	var in input
	if err := json.Unmarshal(readInput(), &in); err != nil {
		setError("toolhost: malformed execute input: " + err.Error())
		return 1
	}
	ctx := &Context{
		SessionID: in.Context.SessionID,
		MessageID: in.Context.MessageID,
		Agent:     in.Context.Agent,
		CallID:    in.Context.CallID,
		Extra:     in.Context.Extra,
	}
	defer func() {
		if r := recover(); r != nil {
			setError(fmt.Sprintf("tool panicked: %v", r))
			rc = 1
		}
	}()
	res, err := t.execute(ctx, in.Args)
	if err != nil {
		setError(err.Error())
		return 1
	}
	out, err := json.Marshal(res)
	if err != nil {
		setError("encode result: " + err.Error())
		return 1
	}
	setOutput(out)
	return 0
}

// PermissionError is returned by Context.Ask when the request is not
// granted. Return it from the handler unchanged: the host recognises it and
// reports the denial to the model exactly as for a built-in tool.
type PermissionError struct {
	// Kind is "denied" (a rule forbids it), "rejected" (a person said no)
	// or "corrected" (a person said no and explained why).
	Kind    string
	Message string
}

func (e *PermissionError) Error() string { return e.Message }

// IsDenied reports whether err is a PermissionError of any kind.
func IsDenied(err error) bool {
	var pe *PermissionError
	return errors.As(err, &pe)
}
