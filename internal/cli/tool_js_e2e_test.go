package cli_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/testkit/e2e"
	"github.com/toolhost/toolhost/plugins/js/jstooltest"
)

// TestToolNewTSScaffoldsAToolThatRunsWithoutABuild: `tool new --lang ts`
// writes an OpenCode-format file that `toolhost tools` lists as js and
// `toolhost call` runs, with no build step.
func TestToolNewTSScaffoldsAToolThatRunsWithoutABuild(t *testing.T) {
	t.Parallel()
	p := e2e.NewProject(t)
	p.ShareCompiled()
	jstooltest.SeedEngine(t, filepath.Join(p.Home, ".cache", "toolhost"))
	jstooltest.LinkZod(t, p.Dir)
	out, stderr, code := p.Run("", "tool", "new", "greet", "--lang", "ts")
	if code != 0 || !strings.Contains(out, filepath.Join(".toolhost", "tool", "greet.ts")) {
		t.Fatalf("tool new: exit %d: %s%s", code, out, stderr)
	}
	out, stderr, code = p.Run("", "tools")
	if code != 0 || !strings.Contains(out, "greet") || !strings.Contains(out, " js ") {
		t.Fatalf("tools: exit %d: %s%s", code, out, stderr)
	}
	out, stderr, code = p.Run("", "call", "greet", `{"name": "Zoë", "excited": true}`)
	if code != 0 || strings.TrimSpace(out) != "hello Zoë!" {
		t.Fatalf("call: exit %d: %q %s", code, out, stderr)
	}
}
