package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/engines/toolbuild"
	"github.com/toolhost/toolhost/internal/testkit/e2e"
	"github.com/toolhost/toolhost/plugins/wasm"
)

// TestAToolInANewLanguageGoesFromNewToCallThroughTheBinary is an author's
// first minutes: scaffold a D tool (the quickest toolchain to build with),
// build it and call it, all through the built binary.
func TestAToolInANewLanguageGoesFromNewToCallThroughTheBinary(t *testing.T) {
	t.Parallel()
	if _, err := toolbuild.Toolchain(context.Background(), toolbuild.LangD); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	p := e2e.NewProject(t)
	if _, stderr, code := p.Run("", "tool", "new", "hello-d", "--lang", "d"); code != 0 {
		t.Fatalf("tool new: exit %d: %s", code, stderr)
	}
	out, stderr, code := p.Run("", "tool", "build")
	if code != 0 || !strings.Contains(out, "✓ hello-d (d)") {
		t.Fatalf("tool build: exit %d: %s%s", code, out, stderr)
	}
	out, stderr, code = p.Run("", "call", "hello-d", `{"name": "Zoë"}`)
	if code != 0 || strings.TrimSpace(out) != "Hello, Zoë!" {
		t.Fatalf("call: exit %d: %q %s", code, out, stderr)
	}
}

func TestToolNewOffersEveryLanguagePluginsBuilds(t *testing.T) {
	t.Parallel()
	p := e2e.NewProject(t)
	help, _, _ := p.Run("", "tool", "new", "--help")
	_, stderr, code := p.Run("", "tool", "new", "x", "--lang", "cobol")
	if code != 2 {
		t.Errorf("unknown language: exit %d, want 2", code)
	}
	var names []string
	for _, l := range toolbuild.Langs() {
		names = append(names, string(l))
	}
	if want := "language: " + strings.Join(names, ", "); !strings.Contains(help, want) {
		t.Errorf("--help does not say %q:\n%s", want, help)
	}
	last := len(names) - 1
	if want := "choose " + strings.Join(names[:last], ", ") + " or " + names[last]; !strings.Contains(stderr, want) {
		t.Errorf("the unknown-language error does not say %q: %s", want, stderr)
	}
}

// TestABuiltGoToolCarriesItsToolListAndWarmsTheCache: `tool build` writes
// the toolhost.tools section into the module and fills the compilation
// cache, so a listing with no description cache reads the section and a
// call compiles from the cache.
func TestABuiltGoToolCarriesItsToolListAndWarmsTheCache(t *testing.T) {
	t.Parallel()
	p := e2e.NewProject(t)
	if _, stderr, code := p.Run("", "tool", "new", "greeter"); code != 0 {
		t.Fatalf("tool new: exit %d: %s", code, stderr)
	}
	out, stderr, code := p.Run("", "tool", "build")
	if code != 0 || !strings.Contains(out, "✓ greeter (go)") {
		t.Fatalf("tool build: exit %d: %s%s", code, out, stderr)
	}
	mod, err := os.ReadFile(filepath.Join(p.Dir, ".toolhost", "tool", "greeter.wasm"))
	if err != nil || !bytes.Contains(mod, []byte(wasm.ToolsSection)) {
		t.Fatalf("the built module has no %s section (%v)", wasm.ToolsSection, err)
	}
	cache := filepath.Join(p.Home, ".cache", "toolhost", "wasm")
	if entries, _ := os.ReadDir(filepath.Join(cache, "compiled")); len(entries) == 0 {
		t.Errorf("tool build left the compilation cache %s empty", cache)
	}
	// Forget what the build learned about the module: only the section
	// can tell the listing now.
	os.RemoveAll(filepath.Join(cache, "meta"))
	os.Remove(filepath.Join(cache, "index.json"))
	out, stderr, code = p.Run("", "tools", "--json")
	var tools []struct {
		ID          string `json:"id"`
		Description string `json:"description"`
	}
	if err := json.Unmarshal([]byte(out), &tools); err != nil || code != 0 {
		t.Fatalf("tools --json: exit %d, %v: %s", code, err, stderr)
	}
	found := false
	for _, tl := range tools {
		found = found || tl.ID == "greeter" && tl.Description != ""
	}
	if !found {
		t.Fatalf("greeter not listed with a description:\n%s", out)
	}
	if out, stderr, code = p.Run("", "call", "greeter", `{"name": "Zoë"}`); code != 0 || !strings.Contains(out, "Zoë") {
		t.Fatalf("call: exit %d: %q %s", code, out, stderr)
	}
}
