package runtime

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/toolhost/toolhost/internal/third_party/jsonschema"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// ValidationError lists every way arguments fail a tool's schema.
type ValidationError struct {
	Tool     string
	Problems []string // "/path: message", one per failing leaf
}

func (e *ValidationError) Error() string {
	return fmt.Sprintf("The %s tool was called with invalid arguments: %s.\nPlease rewrite the input so it satisfies the expected schema.",
		e.Tool, strings.Join(e.Problems, "; "))
}

// formattedValidationError is a ValidationError worded by the tool's own
// formatter; errors.As still finds the ValidationError.
type formattedValidationError struct {
	msg string
	ve  *ValidationError
}

func (e *formattedValidationError) Error() string { return e.msg }
func (e *formattedValidationError) Unwrap() error { return e.ve }

// noSchemaLoader refuses every "$ref" outside the schema itself. The
// library's default loader reads file:// URLs, so a schema from a wasm
// module or a plugin manifest could make the host read any file (or
// block forever on file:///dev/zero) just by being compiled.
type noSchemaLoader struct{}

func (noSchemaLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("schemas may only refer to themselves (\"$ref\": \"#/$defs/…\"); %s is not loaded", url)
}

// compiledSchema validates arguments for one tool.
type compiledSchema struct {
	schema  *jsonschema.Schema
	numeric map[string]bool // top-level properties typed number/integer
}

// CompileSchema compiles a tool's parameter schema. Schemas without
// "$schema" are read as draft 2020-12, as MCP does.
func CompileSchema(id string, raw json.RawMessage) (*compiledSchema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("schema of %s is not JSON: %w", id, err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noSchemaLoader{})
	url := "toolhost:///" + id + ".json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("schema of %s: %w", id, err)
	}
	s, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("schema of %s is not a valid JSON Schema: %w", id, err)
	}
	cs := &compiledSchema{schema: s, numeric: map[string]bool{}}
	if m, ok := doc.(map[string]any); ok {
		if props, ok := m["properties"].(map[string]any); ok {
			for name, p := range props {
				if pm, ok := p.(map[string]any); ok && (pm["type"] == "integer" || pm["type"] == "number") {
					cs.numeric[name] = true
				}
			}
		}
	}
	return cs, nil
}

// validate checks args and returns them, possibly rewritten: numeric strings
// for top-level number/integer properties become numbers ("offset": "10"),
// as OpenCode's coercion does, because models often quote numbers.
func (cs *compiledSchema) validate(id string, args json.RawMessage) (json.RawMessage, error) {
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return nil, &ValidationError{Tool: id, Problems: []string{"arguments are not valid JSON: " + err.Error()}}
	}
	if m, ok := v.(map[string]any); ok && len(cs.numeric) > 0 {
		changed := false
		for name := range cs.numeric {
			if s, ok := m[name].(string); ok {
				if _, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil {
					m[name] = json.Number(strings.TrimSpace(s))
					changed = true
				}
			}
		}
		if changed {
			if b, err := json.Marshal(m); err == nil {
				args = b
			}
		}
	}
	if err := cs.schema.Validate(v); err != nil {
		var ve *jsonschema.ValidationError
		if errors.As(err, &ve) {
			return nil, &ValidationError{Tool: id, Problems: flatten(ve)}
		}
		return nil, &ValidationError{Tool: id, Problems: []string{err.Error()}}
	}
	return args, nil
}

var printer = sync.OnceValue(func() *message.Printer { return message.NewPrinter(language.English) })

// flatten lists the leaf errors of a validation error tree, each with the
// JSON pointer of the offending value.
func flatten(ve *jsonschema.ValidationError) []string {
	var out []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			ptr := "/" + strings.Join(e.InstanceLocation, "/")
			out = append(out, fmt.Sprintf("%s: %s", ptr, e.ErrorKind.LocalizedString(printer())))
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	sort.Strings(out)
	return out
}
