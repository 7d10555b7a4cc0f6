package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRunExportsEveryDefinedTool(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := `package main

import t "github.com/toolhost/toolhost/sdk-guest/go"

var _ = t.Main("main tool", func(*t.Context, struct{}) (t.Result, error) { return t.Result{}, nil })
var _ = t.Define("create", "d", func(*t.Context, struct{}) (t.Result, error) { return t.Result{}, nil })

func init() { t.Define[struct{}]("my-search", "d", nil) }
`
	os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644)
	if err := run(dir); err != nil {
		t.Fatal(err)
	}
	out, _ := os.ReadFile(filepath.Join(dir, OutputFile))
	for _, want := range []string{
		"//go:wasmexport description\n", "//go:wasmexport execute\n",
		"//go:wasmexport create_schema\n", `ExportExecute("create")`,
		"//go:wasmexport my-search_execute\n", "func toolhostExport_tool_my_h_search_execute()",
		"//go:build wasip1",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("generated file lacks %q:\n%s", want, out)
		}
	}
}

func TestRunRefusesNamesThatAreNotLiteralsOrNotValid(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, call, want string }{
		{"a computed name cannot be exported", `t.Define(name, "d", h)`, "must be a string literal"},
		{"a name with a dot is not a valid tool name", `t.Define("a.b", "d", h)`, "must match"},
		{"a file without tools says so", `0`, "no tool.Define"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			src := "package main\n\nimport t \"github.com/toolhost/toolhost/sdk-guest/go\"\n\nvar name = \"x\"\nvar h t.Handler[struct{}]\nvar _ = " + tt.call + "\n"
			os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644)
			err := run(dir)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
}
