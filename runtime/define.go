package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sync"

	"github.com/invopop/jsonschema"
)

// Define makes a Tool from a typed handler. The JSON Schema is generated
// from P (field names from `json` tags, descriptions from `jsonschema` tags
// such as `jsonschema:"description=Path to the file"`; fields without
// omitempty are required), and arguments are decoded into P before fn runs,
// so schema and code cannot drift.
func Define[P any](id, description string, fn func(ctx context.Context, p P, tc *Context) (Result, error)) Tool {
	return DefineDynamic(id, func(context.Context, InitContext) (string, error) { return description, nil }, fn)
}

// DefineDynamic is Define with a description computed per agent.
func DefineDynamic[P any](id string, describe func(ctx context.Context, ic InitContext) (string, error), fn func(ctx context.Context, p P, tc *Context) (Result, error)) Tool {
	// Reflected on first Init, not here: a process builds every built-in
	// and initialises the few it calls or lists (a CLI call of one built-in
	// spent ~1 ms reflecting the schemas of the 25 others; issue 32).
	schema := sync.OnceValue(SchemaFor[P])
	return ToolFunc{Name: id, InitFunc: func(ctx context.Context, ic InitContext) (*Definition, error) {
		desc, err := describe(ctx, ic)
		if err != nil {
			return nil, fmt.Errorf("init %s: %w", id, err)
		}
		return &Definition{
			Description: desc,
			Parameters:  schema(),
			Execute: func(ctx context.Context, args json.RawMessage, tc *Context) (Result, error) {
				var p P
				if len(args) > 0 {
					if err := json.Unmarshal(args, &p); err != nil {
						return Result{}, fmt.Errorf("decode %s arguments: %w", id, err)
					}
				}
				return fn(ctx, p, tc)
			},
		}, nil
	}}
}

// SchemaFor returns the JSON Schema generated from P, inlined (no $defs),
// without $schema or $id, which some model APIs reject.
func SchemaFor[P any]() json.RawMessage {
	r := jsonschema.Reflector{
		Anonymous:                 true,
		DoNotReference:            true,
		ExpandedStruct:            true,
		AllowAdditionalProperties: true,
	}
	var zero P
	s := r.ReflectFromType(reflect.TypeOf(zero))
	s.Version = ""
	b, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("schema for %T: %v", zero, err))
	}
	// An argument-less tool still needs "properties" for some providers.
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	if _, ok := m["properties"]; !ok {
		m["properties"] = map[string]any{}
	}
	b, _ = json.Marshal(m)
	return b
}
