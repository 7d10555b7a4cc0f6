package agent

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestTransformSchema(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		model  string
		strict bool
		in     string
		want   string
	}{
		{
			name:  "an OpenAI model without strict mode gets the schema unchanged",
			model: "gpt-4.1",
			in:    `{"type":"object","properties":{"n":{"type":"integer","enum":[1,2]}},"required":["n"]}`,
			want:  `{"type":"object","properties":{"n":{"type":"integer","enum":[1,2]}},"required":["n"]}`,
		},
		{
			name:  "every family loses $schema and $id",
			model: "qwen3",
			in:    `{"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"x","type":"object","properties":{}}`,
			want:  `{"type":"object","properties":{}}`,
		},
		{
			name:  "Gemini turns integer enums into string enums",
			model: "google/gemini-2.5-pro",
			in:    `{"type":"object","properties":{"level":{"type":"integer","enum":[1,2,3]},"ratio":{"enum":[0.5,1],"type":"number"}}}`,
			want:  `{"type":"object","properties":{"level":{"type":"string","enum":["1","2","3"]},"ratio":{"type":"string","enum":["0.5","1"]}}}`,
		},
		{
			name:  "Gemini keeps only required names that exist, at every depth",
			model: "gemini-2.0-flash",
			in:    `{"type":"object","properties":{"a":{"type":"object","properties":{"x":{"type":"string"}},"required":["x","ghost"]}},"required":["a","b"]}`,
			want:  `{"type":"object","properties":{"a":{"type":"object","properties":{"x":{"type":"string"}},"required":["x"]}},"required":["a"]}`,
		},
		{
			name:  "Gemini gives arrays without items an empty items schema",
			model: "vertex/gemini-pro",
			in:    `{"type":"object","properties":{"tags":{"type":"array"},"ids":{"type":"array","items":{"type":"integer"}}}}`,
			want:  `{"type":"object","properties":{"tags":{"type":"array","items":{}},"ids":{"type":"array","items":{"type":"integer"}}}}`,
		},
		{
			name:   "strict mode requires every property and makes the optional ones nullable",
			model:  "gpt-4.1",
			strict: true,
			in:     `{"type":"object","properties":{"path":{"type":"string"},"limit":{"type":"integer"},"mode":{"type":"string","enum":["a","b"]}},"required":["path"]}`,
			want:   `{"type":"object","properties":{"path":{"type":"string"},"limit":{"type":["integer","null"]},"mode":{"type":["string","null"],"enum":["a","b",null]}},"required":["limit","mode","path"],"additionalProperties":false}`,
		},
		{
			name:   "strict mode reaches objects inside arrays and lets untyped optionals be null through anyOf",
			model:  "gpt-4.1",
			strict: true,
			in:     `{"type":"object","properties":{"todos":{"type":"array","items":{"type":"object","properties":{"id":{"type":"string"},"meta":{"description":"free","anyOf":[{"type":"string"},{"type":"integer"}]},"ref":{"$ref":"#/$defs/x"}},"required":["id"]}}},"required":["todos"],"additionalProperties":true}`,
			want:   `{"type":"object","properties":{"todos":{"type":"array","items":{"type":"object","properties":{"id":{"type":"string"},"meta":{"description":"free","anyOf":[{"type":"string"},{"type":"integer"},{"type":"null"}]},"ref":{"anyOf":[{"$ref":"#/$defs/x"},{"type":"null"}]}},"required":["id","meta","ref"],"additionalProperties":false}}},"required":["todos"],"additionalProperties":false}`,
		},
		{
			name:   "strict mode gives an argument-less object an empty required list",
			model:  "gpt-4.1",
			strict: true,
			in:     `{"type":"object"}`,
			want:   `{"type":"object","properties":{},"required":[],"additionalProperties":false}`,
		},
		{
			name:  "Anthropic drops top-level combinators and keeps the object",
			model: "openrouter/anthropic/claude-sonnet-4",
			in:    `{"type":"object","properties":{"a":{"anyOf":[{"type":"string"},{"type":"null"}]}},"anyOf":[{"required":["a"]}],"oneOf":[{}],"allOf":[{}]}`,
			want:  `{"type":"object","properties":{"a":{"anyOf":[{"type":"string"},{"type":"null"}]}}}`,
		},
		{
			name:  "Anthropic gets an object type on a root that had none",
			model: "claude-3-5-haiku",
			in:    `{"oneOf":[{"type":"object"}]}`,
			want:  `{"type":"object","properties":{}}`,
		},
		{
			name:  "a schema that is not an object is returned as is",
			model: "gemini-pro",
			in:    `[1,2]`,
			want:  `[1,2]`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := TransformSchema(tt.model, tt.strict, json.RawMessage(tt.in))
			if !jsonEqual(t, got, []byte(tt.want)) {
				t.Errorf("TransformSchema(%q, %v)\n got %s\nwant %s", tt.model, tt.strict, got, tt.want)
			}
		})
	}
}

func TestTransformSchemaDoesNotChangeItsInput(t *testing.T) {
	t.Parallel()
	in := json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","enum":[1]}},"required":["n","x"]}`)
	keep := append(json.RawMessage(nil), in...)
	TransformSchema("gemini-pro", true, in)
	if string(in) != string(keep) {
		t.Errorf("input changed to %s", in)
	}
}

func TestModelFamily(t *testing.T) {
	t.Parallel()
	tests := []struct {
		model string
		want  Family
	}{
		{"gpt-4.1", FamilyOther},
		{"ollama/qwen3:8b", FamilyOther},
		{"google/gemma-3", FamilyGemini},
		{"GEMINI-2.5-FLASH", FamilyGemini},
		{"claude-sonnet-4-5", FamilyAnthropic},
		{"anthropic/some-model", FamilyAnthropic},
		{"openrouter/anthropic/x", FamilyAnthropic},
	}
	for _, tt := range tests {
		if got := ModelFamily(tt.model); got != tt.want {
			t.Errorf("ModelFamily(%q) = %q, want %q", tt.model, got, tt.want)
		}
	}
}

func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("not JSON: %s", a)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("not JSON: %s", b)
	}
	return reflect.DeepEqual(x, y)
}

func FuzzTransformSchema(f *testing.F) {
	f.Add("gemini-pro", true, `{"type":"object","properties":{"n":{"type":"integer","enum":[1,2]},"a":{"type":"array"}},"required":["n","x"]}`)
	f.Add("claude-x", false, `{"anyOf":[{"type":"object"}],"$schema":"x"}`)
	f.Add("gpt-4.1", true, `{"type":"object","properties":{"o":{"anyOf":[{"type":"string"}]},"e":{"type":["string","null"],"enum":["a",null]}}}`)
	f.Fuzz(func(t *testing.T, model string, strict bool, schema string) {
		out := TransformSchema(model, strict, json.RawMessage(schema))
		var in map[string]any
		if json.Unmarshal([]byte(schema), &in) != nil || in == nil {
			if string(out) != schema {
				t.Fatalf("non-object schema changed: %q → %q", schema, out)
			}
			return
		}
		var got map[string]any
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("output is not a JSON object: %s", out)
		}
		if strict {
			if props, ok := got["properties"].(map[string]any); ok {
				if req, _ := got["required"].([]any); len(req) != len(props) {
					t.Fatalf("strict root requires %v of %d properties", req, len(props))
				}
			}
		}
	})
}
