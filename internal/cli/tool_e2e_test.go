package cli_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/e2e"
	"github.com/toolhost/toolhost/internal/toolbuild"
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
