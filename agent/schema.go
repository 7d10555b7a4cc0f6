package agent

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
)

// Family is the kind of model behind an endpoint, as far as tool schemas
// are concerned: each family rejects or misreads different JSON Schema.
type Family string

// The families TransformSchema knows. Every other model gets the schema
// unchanged (FamilyOther).
const (
	FamilyOther     Family = ""
	FamilyGemini    Family = "gemini"
	FamilyAnthropic Family = "anthropic"
	// FamilyMistral has no schema rules of its own, but strict message
	// rules (transform.go).
	FamilyMistral Family = "mistral"
)

// ModelFamily guesses the family from a model id such as "google/gemini-2.5-pro",
// "openrouter/anthropic/claude-sonnet-4" or "gpt-4.1". The id is all there is
// to go on when a model is served through an OpenAI-compatible endpoint, so
// this matches names the way OpenCode's provider transforms do.
func ModelFamily(model string) Family {
	m := strings.ToLower(model)
	switch {
	case strings.HasPrefix(m, "google/") || strings.Contains(m, "gemini"):
		return FamilyGemini
	case strings.Contains(m, "claude") || strings.HasPrefix(m, "anthropic/") || strings.Contains(m, "/anthropic/"):
		return FamilyAnthropic
	case strings.Contains(m, "mistral") || strings.Contains(m, "devstral") || strings.Contains(m, "codestral") || strings.Contains(m, "magistral"):
		return FamilyMistral
	}
	return FamilyOther
}

// TransformSchema rewrites a tool's parameter schema for the model that
// will read it. It never fails: a schema that is not a JSON object is
// returned unchanged (the registry has already compiled it, so this does
// not happen for registered tools).
//
//   - Gemini: enum values become strings and an integer or number type with
//     an enum becomes string (Gemini rejects non-string enums); "required"
//     keeps only names that exist in "properties"; an array without "items"
//     gets "items": {}.
//   - strict (OpenAI structured outputs, on when the provider's config says
//     strict): every object lists all its properties in "required", those
//     that were optional become nullable, and "additionalProperties" is false
//     everywhere. Apply it only for models that accept strict mode.
//   - Anthropic: the root must be a plain object schema, so top-level
//     oneOf/anyOf/allOf (rejected with "input_schema does not support oneOf,
//     allOf, or anyOf at the top level") are dropped and type "object" is set.
//
// Every family loses "$schema" and "$id", which several endpoints reject and
// none needs.
func TransformSchema(model string, strict bool, schema json.RawMessage) json.RawMessage {
	var root map[string]any
	if err := json.Unmarshal(schema, &root); err != nil || root == nil {
		return schema
	}
	delete(root, "$schema")
	delete(root, "$id")
	switch ModelFamily(model) {
	case FamilyGemini:
		root = geminiSchema(root).(map[string]any)
	case FamilyAnthropic:
		anthropicRoot(root)
	}
	if strict {
		strictObject(root)
	}
	out, err := json.Marshal(root)
	if err != nil {
		return schema
	}
	return out
}

// geminiSchema applies the Gemini rules to v and everything below it.
func geminiSchema(v any) any {
	switch v := v.(type) {
	case []any:
		for i := range v {
			v[i] = geminiSchema(v[i])
		}
		return v
	case map[string]any:
		for k, child := range v {
			if k == "enum" {
				continue
			}
			v[k] = geminiSchema(child)
		}
		if enum, ok := v["enum"].([]any); ok {
			for i, e := range enum {
				enum[i] = enumString(e)
			}
			if t, _ := v["type"].(string); t == "integer" || t == "number" {
				v["type"] = "string"
			}
		}
		if props, ok := v["properties"].(map[string]any); ok {
			if req, ok := v["required"].([]any); ok {
				kept := req[:0]
				for _, name := range req {
					if s, ok := name.(string); ok {
						if _, exists := props[s]; exists {
							kept = append(kept, s)
						}
					}
				}
				v["required"] = kept
			}
		}
		if t, _ := v["type"].(string); t == "array" {
			if _, ok := v["items"]; !ok {
				v["items"] = map[string]any{}
			}
		}
		return v
	}
	return v
}

// enumString renders an enum value as Gemini wants it: numbers as their
// JSON text (1, not 1.0), strings unchanged, anything else as JSON.
func enumString(v any) any {
	switch v := v.(type) {
	case string:
		return v
	case nil:
		return "null"
	default:
		b, _ := json.Marshal(v)
		return string(b)
	}
}

// anthropicRoot makes the root a plain object schema.
func anthropicRoot(root map[string]any) {
	for _, k := range []string{"oneOf", "anyOf", "allOf", "not", "if", "then", "else"} {
		delete(root, k)
	}
	root["type"] = "object"
	if _, ok := root["properties"]; !ok {
		root["properties"] = map[string]any{}
	}
}

// strictObject applies OpenAI strict mode to every object schema reachable
// from v: properties, items, combinators and definitions.
func strictObject(v any) {
	switch v := v.(type) {
	case []any:
		for _, e := range v {
			strictObject(e)
		}
	case map[string]any:
		if props, ok := v["properties"].(map[string]any); ok || isObjectType(v["type"]) {
			if props == nil {
				props = map[string]any{}
				v["properties"] = props
			}
			required := map[string]bool{}
			if req, ok := v["required"].([]any); ok {
				for _, r := range req {
					if s, ok := r.(string); ok {
						required[s] = true
					}
				}
			}
			names := slices.Sorted(maps.Keys(props))
			all := make([]any, 0, len(names))
			for _, name := range names {
				if !required[name] {
					if p, ok := props[name].(map[string]any); ok {
						props[name] = nullable(p)
					}
				}
				all = append(all, name)
			}
			v["required"] = all
			v["additionalProperties"] = false
		}
		for k, child := range v {
			switch k {
			case "properties", "$defs", "definitions", "patternProperties":
				if m, ok := child.(map[string]any); ok {
					for _, s := range m {
						strictObject(s)
					}
				}
			case "items", "anyOf", "oneOf", "allOf", "prefixItems", "not":
				strictObject(child)
			}
		}
	}
}

func isObjectType(t any) bool {
	switch t := t.(type) {
	case string:
		return t == "object"
	case []any:
		return slices.Contains(t, any("object"))
	}
	return false
}

// nullable lets an optional property be null, which is how strict mode says
// "optional": a type gains "null" (and an enum gains null), a schema without
// a type gains a {"type": "null"} branch in anyOf.
func nullable(p map[string]any) map[string]any {
	switch t := p["type"].(type) {
	case string:
		if t != "null" {
			p["type"] = []any{t, "null"}
		}
	case []any:
		if !slices.Contains(t, any("null")) {
			p["type"] = append(t, "null")
		}
	default:
		if branches, ok := p["anyOf"].([]any); ok {
			for _, b := range branches {
				if m, ok := b.(map[string]any); ok && m["type"] == "null" {
					return p
				}
			}
			p["anyOf"] = append(branches, map[string]any{"type": "null"})
			return p
		}
		out := map[string]any{"anyOf": []any{p, map[string]any{"type": "null"}}}
		if d, ok := p["description"]; ok {
			out["description"] = d
			delete(p, "description")
		}
		return out
	}
	if enum, ok := p["enum"].([]any); ok && !slices.Contains(enum, nil) {
		p["enum"] = append(enum, nil)
	}
	return p
}
