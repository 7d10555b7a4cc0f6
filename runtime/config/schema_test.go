package config

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/invopop/jsonschema"
	schemavalidator "github.com/toolhost/toolhost/internal/third_party/jsonschema"
)

var update = flag.Bool("update", false, "rewrite schema.json from the Config types")

// generateSchema reflects the JSON Schema of a config file from Config. Field
// comments become descriptions, which is why this runs from the package's
// source directory (a test) and not at run time.
func generateSchema(t *testing.T) []byte {
	t.Helper()
	r := &jsonschema.Reflector{
		// Only fields tagged required are required: files are partial
		// by design, each one merged onto the others.
		RequiredFromJSONSchemaTags: true,
		ExpandedStruct:             true,
		Anonymous:                  true,
		// permission.Config and Config share a name; without this the
		// permission field would point at the wrong definition.
		Namer: func(t reflect.Type) string {
			if t == permissionType {
				return "Permission"
			}
			return ""
		},
		Mapper: func(t reflect.Type) *jsonschema.Schema {
			if t == permissionType {
				return permissionSchema()
			}
			if t == lspConfigType {
				return lspSchema()
			}
			return nil
		},
	}
	if err := r.AddGoComments("github.com/toolhost/toolhost/runtime/config", "."); err != nil {
		t.Fatalf("read Go comments: %v", err)
	}
	s := r.Reflect(&Config{})
	// LSPConfig is mapped by hand (false or an object); its servers'
	// definition is reflected on its own.
	server := r.Reflect(&LSPServer{})
	server.Version, server.ID = "", ""
	s.Definitions["LSPServer"] = server
	s.Title = "toolhost config"
	s.Description = "toolhost.json / toolhost.jsonc. Comments and trailing commas are allowed; string values may use {env:VAR} and {file:path}."
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		t.Fatalf("encode schema: %v", err)
	}
	return append(b, '\n')
}

// permissionSchema describes what permission.Config accepts: an action, or
// an object of permission names to an action or an object of pattern to
// action.
func permissionSchema() *jsonschema.Schema {
	action := func() *jsonschema.Schema {
		return &jsonschema.Schema{Type: "string", Enum: []any{"allow", "ask", "deny"}}
	}
	patterns := &jsonschema.Schema{Type: "object", AdditionalProperties: action(), Description: "Pattern to action, in order; the last matching pattern decides."}
	return &jsonschema.Schema{
		Description: `Permission rules, in order; the last matching rule decides. "allow" applies to everything; {"edit": "deny"}; {"bash": {"*": "ask", "git *": "allow"}}.`,
		AnyOf: []*jsonschema.Schema{
			action(),
			{Type: "object", AdditionalProperties: &jsonschema.Schema{AnyOf: []*jsonschema.Schema{action(), patterns}}},
		},
	}
}

// lspSchema describes LSPConfig: false, or an object of LSPServer.
func lspSchema() *jsonschema.Schema {
	return &jsonschema.Schema{
		Description: `Language servers for diagnostics after edits, as OpenCode's "lsp": false turns them all off; an object overrides, disables ({"disabled": true}) or adds servers by name. Absent: the built-in servers whose commands are on PATH.`,
		AnyOf: []*jsonschema.Schema{
			{Type: "boolean"},
			{Type: "object", AdditionalProperties: &jsonschema.Schema{Ref: "#/$defs/LSPServer"}},
		},
	}
}

func TestSchemaIsUpToDate(t *testing.T) {
	// Not parallel: with -update it writes the file the other test reads.
	got := generateSchema(t)
	if *update {
		if err := os.WriteFile("schema.json", got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(got, schemaJSON) {
		t.Fatal("schema.json is out of date with the Config types; run: go generate ./runtime/config")
	}
}

func TestSchemaAgreesWithTheLoader(t *testing.T) {
	t.Parallel()
	c := schemavalidator.NewCompiler()
	doc, err := schemavalidator.UnmarshalJSON(bytes.NewReader(schemaJSON))
	if err != nil {
		t.Fatalf("schema.json is not JSON: %v", err)
	}
	if err := c.AddResource("toolhost.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("toolhost.schema.json")
	if err != nil {
		t.Fatalf("schema.json is not a valid JSON Schema: %v", err)
	}
	tests := []struct {
		name  string
		doc   string
		valid bool
	}{
		{
			name: "a config using every section is valid",
			doc: `{
  "$schema": "./schema.json",
  "permission": {"bash": {"*": "ask", "git *": "allow"}, "edit": "deny"},
  "agent": {"review": {"mode": "subagent", "temperature": 0.2, "permission": "ask", "tools": {"edit": false}}},
  "default_agent": "build", "model": "gpt-4.1",
  "tool_output": {"max_lines": 100, "max_bytes": 4096},
  "tools": {"webfetch": false, "mcp_*": false},
  "experimental": {"batch_tool": true},
  "bash": {"timeout_ms": 1000, "shell": "bash"},
  "wasm": {"jira": {"allowed_hosts": ["*.example.com"], "allowed_paths": {"ro:.": "/project"}, "timeout_ms": 10}},
  "mcp": {"gh": {"type": "local", "command": ["gh-mcp"]}, "docs": {"type": "remote", "url": "https://x.test/mcp", "enabled": false}},
  "plugin": ["./vendor/x"],
  "provider": {"local": {"base_url": "http://127.0.0.1:1/v1", "models": ["m"]}},
  "search": {"endpoint": "https://x.test"},
  "lsp": {"go": {"command": ["gopls"], "extensions": [".go"]}},
  "trust": {"require_signatures": true}
}`,
			valid: true,
		},
		{name: "a single action as the permission value is valid", doc: `{"permission": "allow"}`, valid: true},
		{name: "an unknown key is invalid", doc: `{"tool_ouput": {}}`},
		{name: "an unknown nested key is invalid", doc: `{"bash": {"shel": "zsh"}}`},
		{name: "a string where a number belongs is invalid", doc: `{"tool_output": {"max_lines": "many"}}`},
		{name: "an action that is not allow, ask or deny is invalid", doc: `{"permission": {"bash": {"*": "allw"}}}`},
		{name: "an agent mode outside the enum is invalid", doc: `{"agent": {"x": {"mode": "secondary"}}}`},
		{name: "an MCP server without a type is invalid", doc: `{"mcp": {"x": {"command": ["x"]}}}`},
		{name: "a negative wasm limit is invalid", doc: `{"wasm": {"x": {"memory_max_mb": -1}}}`},
		{name: "a wasm grant keyed by the file it is for is valid", doc: `{"wasm": {"/src/app/.opencode/tool/jira.ts": {"env": ["JIRA_TOKEN"], "sampling": true}, "~/tools/x.wasm": {"allowed_hosts": ["a.example"]}}}`, valid: true},
		{name: "a wasm grant with an unknown field is invalid", doc: `{"wasm": {"jira": {"file": "x.wasm"}}}`},
		{name: "lsp false is valid", doc: `{"lsp": false}`, valid: true},
		{name: "disabling a built-in language server is valid", doc: `{"lsp": {"gopls": {"disabled": true}}}`, valid: true},
		{name: "a language server with env and initialization is valid", doc: `{"lsp": {"gopls": {"command": ["gopls"], "env": {"GOFLAGS": "-mod=mod"}, "initialization": {"staticcheck": true}}}}`, valid: true},
		{name: "a language server key that is not a field is invalid", doc: `{"lsp": {"gopls": {"comand": ["gopls"]}}}`},
		{name: "lsp as a string is invalid", doc: `{"lsp": "off"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			v, err := schemavalidator.UnmarshalJSON(strings.NewReader(tt.doc))
			if err != nil {
				t.Fatal(err)
			}
			err = sch.Validate(v)
			if (err == nil) != tt.valid {
				t.Errorf("schema validation error = %v, want valid=%v", err, tt.valid)
			}
			// The loader must agree with the schema on every document.
			f := newFixture(t)
			_, lerr := f.load(map[string]string{"TOOLHOST_CONFIG_CONTENT": tt.doc})
			if (lerr == nil) != tt.valid {
				t.Errorf("Load error = %v, want valid=%v", lerr, tt.valid)
			}
		})
	}
}
