package toolbuild_test

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/toolhost/toolhost/internal/engines/toolbuild"
	"github.com/toolhost/toolhost/plugins/wasm"
	"github.com/toolhost/toolhost/runtime"
)

func TestNewThenBuildMakesLoadableTools(t *testing.T) {
	t.Parallel()
	// Go and C here; examples/matrix builds every language's template
	// through New and Build with its real toolchain.
	langs := []toolbuild.Lang{toolbuild.LangGo}
	if _, err := toolbuild.FindToolchain(context.Background(), toolbuild.LangC); err == nil || os.Getenv("CI") == "true" {
		langs = append(langs, toolbuild.LangC)
	} else {
		t.Logf("scaffolding only the Go tool: %v", err)
	}
	dir := t.TempDir()
	for _, l := range langs {
		if _, err := toolbuild.New(dir, "greet-"+string(l), l); err != nil {
			t.Fatal(err)
		}
	}
	results, err := toolbuild.Build(context.Background(), dir)
	if err != nil {
		for _, r := range results {
			t.Log(r.Name, r.Err)
		}
		t.Fatal(err)
	}
	if len(results) != len(langs) {
		t.Fatalf("built %d tools, want %d", len(results), len(langs))
	}
	h := wasm.NewEngine(wasm.EngineOptions{CacheDir: t.TempDir()})
	t.Cleanup(func() { h.Close(context.Background()) })
	loaded, errs := h.Discover(context.Background(), []string{dir})
	for _, e := range errs {
		t.Errorf("load error: %v", e)
	}
	tools := map[string]runtime.Tool{}
	for _, tl := range loaded {
		tools[tl.ID()] = tl
	}
	for _, l := range langs {
		id := "greet-" + string(l)
		tl, ok := tools[id]
		if !ok {
			t.Errorf("%s not loaded", id)
			continue
		}
		def, err := tl.Init(context.Background(), runtime.InitContext{})
		if err != nil {
			t.Fatal(err)
		}
		d := t.TempDir()
		res, err := def.Execute(context.Background(), json.RawMessage(`{"name": "Ada"}`), runtime.NewContext(runtime.Context{Directory: d, Worktree: d, SessionID: "s1", CallID: "c1", Agent: "build"}, nil, nil))
		if err != nil || res.Output != "Hello, Ada!" {
			t.Errorf("%s: %+v, %v", id, res, err)
		}
	}
}
