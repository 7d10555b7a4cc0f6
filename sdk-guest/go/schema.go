package tool

import (
	"encoding/json"
	"reflect"
	"strings"
)

// SchemaOf returns the JSON Schema (as a map ready for encoding/json) of
// values of type t, the way Define generates tool schemas:
//   - field names come from `json` tags; fields tagged "-" and unexported
//     fields are skipped;
//   - a field is required unless its json tag has omitempty/omitzero or it
//     is a pointer;
//   - `jsonschema:"description=…,enum=a,enum=b,default=…"` adds keywords,
//     the same tag syntax toolhost's native tools use (commas inside a
//     description are written as \,).
//
// It is a small reflector on purpose: the guest module has no dependencies,
// so it builds offline and stays small.
func SchemaOf(t reflect.Type) map[string]any {
	s := schemaOf(t, map[reflect.Type]bool{})
	if s["type"] == "object" {
		if _, ok := s["properties"]; !ok {
			s["properties"] = map[string]any{}
		}
	}
	return s
}

var rawMessage = reflect.TypeFor[json.RawMessage]()

func schemaOf(t reflect.Type, seen map[reflect.Type]bool) map[string]any {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == rawMessage {
		return map[string]any{}
	}
	switch t.Kind() {
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return map[string]any{"type": "string", "contentEncoding": "base64"}
		}
		return map[string]any{"type": "array", "items": schemaOf(t.Elem(), seen)}
	case reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": schemaOf(t.Elem(), seen)}
	case reflect.Struct:
		if seen[t] {
			return map[string]any{"type": "object"} // recursive type: stop here
		}
		seen[t] = true
		defer delete(seen, t)
		props := map[string]any{}
		required := []string{}
		addStruct(t, props, &required, seen)
		s := map[string]any{"type": "object", "properties": props}
		if len(required) > 0 {
			s["required"] = required
		}
		return s
	default: // interface{} and anything else accepts any JSON value
		return map[string]any{}
	}
}

func addStruct(t reflect.Type, props map[string]any, required *[]string, seen map[reflect.Type]bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				addStruct(ft, props, required, seen)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		s := schemaOf(f.Type, seen)
		applyTag(s, f.Tag.Get("jsonschema"))
		props[name] = s
		optional := strings.Contains(opts, "omitempty") || strings.Contains(opts, "omitzero") || f.Type.Kind() == reflect.Pointer
		if !optional {
			*required = append(*required, name)
		}
	}
}

// applyTag adds the keywords of a `jsonschema:"k=v,k=v"` tag.
func applyTag(s map[string]any, tag string) {
	if tag == "" {
		return
	}
	for _, kv := range splitTag(tag) {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "description", "title", "format", "pattern":
			s[k] = v
		case "enum":
			enum, _ := s["enum"].([]any)
			s["enum"] = append(enum, typed(s, v))
		case "default", "minimum", "maximum", "minLength", "maxLength", "minItems", "maxItems":
			s[k] = typed(s, v)
		}
	}
}

// typed turns a tag value into the JSON type the schema declares.
func typed(s map[string]any, v string) any {
	switch s["type"] {
	case "integer", "number", "boolean":
		var x any
		if json.Unmarshal([]byte(v), &x) == nil {
			return x
		}
	}
	if _, err := json.Number(v).Float64(); err == nil && s["type"] != "string" {
		return json.Number(v)
	}
	return v
}

// splitTag splits on commas not escaped as \,.
func splitTag(tag string) []string {
	var out []string
	var cur strings.Builder
	for i := 0; i < len(tag); i++ {
		switch {
		case tag[i] == '\\' && i+1 < len(tag) && tag[i+1] == ',':
			cur.WriteByte(',')
			i++
		case tag[i] == ',':
			out = append(out, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(tag[i])
		}
	}
	return append(out, cur.String())
}
