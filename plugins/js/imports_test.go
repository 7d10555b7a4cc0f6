package js

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// importCorpus is testdata/imports.json.
type importCorpus struct {
	Comment string `json:"comment"`
	Cases   []struct {
		Name   string            `json:"name"`
		Import string            `json:"import"`
		Files  map[string]string `json:"files"`
		Links  map[string]string `json:"links"`
		Want   string            `json:"want"`
	} `json:"cases"`
}

// TestImportsCorpus: a bundle holds the project's own files and the
// packages installed in it, judged where their links lead; no package
// field, link, node_modules folder outside the project or ".." carries
// another file in.
func TestImportsCorpus(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("testdata", "imports.json"))
	if err != nil {
		t.Fatal(err)
	}
	var c importCorpus
	d := json.NewDecoder(strings.NewReader(string(b)))
	d.DisallowUnknownFields()
	if err := d.Decode(&c); err != nil {
		t.Fatalf("testdata/imports.json: %v", err)
	}
	for _, tc := range c.Cases {
		t.Run(tc.Name, func(t *testing.T) {
			t.Parallel()
			top := t.TempDir()
			files := map[string]string{
				"secret.json":                        `{"k":"SECRET"}`,
				"proj/keys.json":                     `{"k":"SECRET"}`,
				"proj/node_modules/zod/package.json": `{"name":"zod","main":"index.js"}`,
				"proj/node_modules/zod/index.js":     `export const z = { stand: "in" };`,
				"proj/.opencode/tool/t.ts":           tc.Import + "\nexport default { description: \"x\", args: {}, async execute() { return String(s) } }\n",
			}
			for k, v := range tc.Files {
				files[k] = v
			}
			for p, body := range files {
				p = filepath.Join(top, p)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			for p, target := range tc.Links {
				p = filepath.Join(top, p)
				os.MkdirAll(filepath.Dir(p), 0o755)
				os.RemoveAll(p)
				if err := os.Symlink(strings.ReplaceAll(target, "$TOP", top), p); err != nil {
					t.Fatal(err)
				}
			}
			code, _, err := bundleInputs(filepath.Join(top, "proj", ".opencode", "tool", "t.ts"), filepath.Join(top, "proj"))
			if strings.Contains(code, "SECRET") {
				t.Fatalf("the bundle holds a file it must not:\n%s", code)
			}
			switch {
			case tc.Want == "ok" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.Want != "ok" && (err == nil || !strings.Contains(err.Error(), tc.Want)):
				t.Fatalf("err = %v, want %q", err, tc.Want)
			}
		})
	}
}
