package js

import (
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// TestImportsReadWhatWasChecked: a project file swapped for a link
// leading out of the project between the check and the read — a bash
// command looping `ln -sf ~/.docker/config.json data.json` beside the
// tool's build — never puts the outside file's bytes in the bundle.
func TestImportsReadWhatWasChecked(t *testing.T) {
	t.Parallel()
	top := t.TempDir()
	tool := filepath.Join(top, "proj", ".opencode", "tool")
	for p, body := range map[string]string{
		"secret.json":                        `{"k":"SECRET"}`,
		"proj/node_modules/zod/package.json": `{"name":"zod","main":"index.js"}`,
		"proj/node_modules/zod/index.js":     `export const z = { stand: "in" };`,
		"proj/.opencode/tool/t.ts":           "import s from \"./data.json\";\nexport default { description: \"x\", args: {}, async execute() { return JSON.stringify(s) } }\n",
		"proj/.opencode/tool/data.json":      `{"k":"plain"}`,
	} {
		p = filepath.Join(top, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data := filepath.Join(tool, "data.json")
	var stop atomic.Bool
	done := make(chan struct{})
	go func() {
		defer close(done)
		plain, link := filepath.Join(tool, "plain.tmp"), filepath.Join(tool, "link.tmp")
		for !stop.Load() {
			os.WriteFile(plain, []byte(`{"k":"plain"}`), 0o644)
			os.Rename(plain, data)
			os.Symlink(filepath.Join(top, "secret.json"), link)
			os.Rename(link, data)
		}
	}()
	defer func() { stop.Store(true); <-done }()
	built := 0
	for i := 0; i < 200; i++ {
		code, _, err := bundleInputs(filepath.Join(tool, "t.ts"), filepath.Join(top, "proj"))
		if strings.Contains(code, "SECRET") {
			t.Fatalf("build %d: the bundle holds a file outside the project:\n%s", i, code)
		}
		if err == nil {
			built++
		}
	}
	t.Logf("%d of 200 builds succeeded (the rest saw the link and were refused)", built)
}
