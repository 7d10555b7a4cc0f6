package js

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestScaffoldWritesAToolThatRuns(t *testing.T) {
	t.Parallel()
	zod := testZod(t)
	for _, lang := range []string{"ts", "js"} {
		t.Run(lang, func(t *testing.T) {
			root := t.TempDir()
			cfg := filepath.Join(root, ".toolhost")
			path, hint, err := Scaffold(cfg, "hello", lang)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(hint, "npm install zod") {
				t.Errorf("hint = %q, want the npm command for zod", hint)
			}
			if _, _, err := Scaffold(cfg, "hello", lang); err == nil {
				t.Error("a second scaffold overwrote the first")
			}
			linkTree(t, filepath.Join(zod, "node_modules"), filepath.Join(cfg, "node_modules"))
			f, err := Load(context.Background(), path, LoadOptions{Runtime: testRuntime(t)})
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close(context.Background())
			if f.Defs[0].ID != "hello" {
				t.Fatalf("id = %s", f.Defs[0].ID)
			}
			out, err := f.Call(context.Background(), "default", json.RawMessage(`{"name":"ada"}`), CallInfo{}, Limits{}, nil)
			if err != nil || !strings.HasPrefix(out.Output, "hello ada") {
				t.Fatalf("got %+v, %v", out, err)
			}
		})
	}
	if _, _, err := Scaffold(t.TempDir(), "../evil", "ts"); err == nil {
		t.Error("a name with a path in it was accepted")
	}
}

func TestBuildWithoutZodNamesTheNpmCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "t.ts")
	os.WriteFile(p, []byte(`import { tool } from "@opencode-ai/plugin"
export default tool({ description: "x", args: {}, async execute() { return "" } })`), 0o644)
	_, err := bundle(p)
	if err == nil || !strings.Contains(err.Error(), "npm install zod") {
		t.Fatalf("err = %v", err)
	}
}
