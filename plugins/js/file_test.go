package js

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadDescribesOpenCodeExports(t *testing.T) {
	t.Parallel()
	f := loadFixture(t, "greet.ts")
	if len(f.Defs) != 2 {
		t.Fatalf("defs = %+v", f.Defs)
	}
	byID := map[string]Def{}
	for _, d := range f.Defs {
		byID[d.ID] = d
	}
	greet, ok := byID["greet"]
	if !ok || greet.Export != "default" || greet.Description != "Greet someone" {
		t.Fatalf("default export = %+v", greet)
	}
	if c, ok := byID["greet_count"]; !ok || c.Export != "count" {
		t.Fatalf("named export = %+v", byID)
	}
	var schema struct {
		Type       string                     `json:"type"`
		Required   []string                   `json:"required"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(greet.Schema, &schema); err != nil {
		t.Fatal(err)
	}
	if schema.Type != "object" || strings.Join(schema.Required, ",") != "name" {
		t.Fatalf("schema = %s (defaults and optionals must not be required)", greet.Schema)
	}
	for _, want := range []string{`"enum":["plain","shout"]`, `"default":1`, `"type":"array"`, `"description":"who to greet"`} {
		if !strings.Contains(string(greet.Schema), want) {
			t.Errorf("schema %s lacks %s", greet.Schema, want)
		}
	}
}

func TestCallAppliesZodDefaultsAndReturnsResults(t *testing.T) {
	t.Parallel()
	f := loadFixture(t, "greet.ts")
	ctx := context.Background()
	info := CallInfo{SessionID: "s1", Agent: "build"}
	tests := []struct {
		name, export, args string
		want               Output
	}{
		{"defaults fill what the model left out", "default", `{"name":"ada"}`, Output{Output: "hello ada (agent build, session s1)"}},
		{"enums, numbers and arrays arrive parsed", "default", `{"name":"ada","times":2,"style":"shout","tags":["a","b"]}`,
			Output{Output: "HELLO ADA! HELLO ADA! [a,b] (agent build, session s1)"}},
		{"an object result keeps title and metadata", "count", `{"word":"hello"}`,
			Output{Output: "5", Title: "count hello", Metadata: map[string]any{"letters": float64(5)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := f.Call(ctx, tt.export, json.RawMessage(tt.args), info, Limits{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := json.Marshal(out)
			want, _ := json.Marshal(tt.want)
			if string(got) != string(want) {
				t.Fatalf("got %s, want %s", got, want)
			}
		})
	}
	_, err := f.Call(ctx, "default", json.RawMessage(`{"name":"ada","style":"loud"}`), info, Limits{}, nil)
	var te *ToolError
	if err == nil || !errorsAs(err, &te) || !strings.Contains(te.Message, "invalid arguments") {
		t.Fatalf("an enum outside its values = %v, want invalid arguments", err)
	}
}

// TestArgsParsersAreCompiledAtLoadNotPerCall: zod compiles an object's
// parser with new Function on its first parse; done in describe, the
// compiled parser is in the snapshot, so calls (which start from it) do
// not compile it again — that was two thirds of a warm call.
func TestArgsParsersAreCompiledAtLoadNotPerCall(t *testing.T) {
	t.Parallel()
	f := loadFixture(t, "compiled.ts")
	ctx := context.Background()
	for i := range 3 {
		out, err := f.Call(ctx, "default", json.RawMessage(`{"word":"w"}`), CallInfo{}, Limits{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(out.Output, "w1 made=") || strings.Contains(out.Output, "made=0") || !strings.HasSuffix(out.Output, "inCall=0") {
			t.Fatalf("call %d = %q; want the defaults applied and the parser compiled at load (made>0), not in the call (inCall=0)", i, out.Output)
		}
	}
	if _, err := f.Call(ctx, "default", json.RawMessage(`{"word":3}`), CallInfo{}, Limits{}, nil); err == nil || !strings.Contains(err.Error(), "invalid arguments") {
		t.Fatalf("a number for a string = %v; want invalid arguments from the cached parser", err)
	}
	var te *ToolError
	if _, err := f.Call(ctx, "throws", json.RawMessage(`{}`), CallInfo{}, Limits{}, nil); !errorsAs(err, &te) || !strings.Contains(te.Message, "no default here") {
		t.Fatalf("a transform that throws on the default = %v; want the file loaded and the call reporting the tool's error", err)
	}
	if out, err := f.Call(ctx, "throws", json.RawMessage(`{"a":"given"}`), CallInfo{}, Limits{}, nil); err != nil || out.Output != "given" {
		t.Fatalf("a throwing transform not reached = %v, %v; want given", out, err)
	}
}

func TestTheProjectsOwnOpenCodePluginPackageIsUsed(t *testing.T) {
	t.Parallel()
	dir := project(t, "greet.ts")
	nm := filepath.Join(filepath.Dir(dir), "node_modules")
	os.MkdirAll(filepath.Join(nm, "@opencode-ai"), 0o755)
	src, _ := filepath.Abs(filepath.Join("testdata", "plugin-package"))
	if err := os.CopyFS(filepath.Join(nm, "@opencode-ai", "plugin"), os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	f, err := Load(context.Background(), filepath.Join(dir, "greet.ts"), LoadOptions{Runtime: testRuntime(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close(context.Background())
	if !strings.HasSuffix(f.Defs[0].Description, "(from the project's package)") {
		t.Fatalf("description %q: the built-in module was used though the project installs the package", f.Defs[0].Description)
	}
}
