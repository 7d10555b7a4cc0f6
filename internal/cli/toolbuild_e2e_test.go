package cli_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/engines/toolbuild"
	"github.com/toolhost/toolhost/internal/testkit/e2e"
)

// needC skips without the C toolchain (the quickest to build with), and
// fails with CI=true, where it is installed.
func needC(t *testing.T) {
	t.Helper()
	if _, err := toolbuild.Toolchain(context.Background(), toolbuild.LangC); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
}

// TestToolBuildSkipsWhatIsUpToDateAndKeepsTheOldModuleWhenABuildFails is
// an author's edit loop through the binary: build, build again (nothing to
// do), break the source (the old tool is kept, marked stale, with the
// compiler's error pointing at the file from where the author stands), fix
// it (stale no more).
func TestToolBuildSkipsWhatIsUpToDateAndKeepsTheOldModuleWhenABuildFails(t *testing.T) {
	t.Parallel()
	needC(t)
	p := e2e.NewProject(t)
	if _, stderr, code := p.Run("", "tool", "new", "greet", "--lang", "c"); code != 0 {
		t.Fatalf("tool new: exit %d: %s", code, stderr)
	}
	for _, f := range []string{".toolhost/tools-src/.gitignore", ".toolhost/tool/.gitignore"} {
		if _, err := os.Stat(filepath.Join(p.Dir, f)); err != nil {
			t.Errorf("scaffolding wrote no %s: %v", f, err)
		}
	}
	if out, stderr, code := p.Run("", "tool", "build", "greet"); code != 0 || !strings.Contains(out, "✓ greet (c) → .toolhost/tool/greet.wasm") {
		t.Fatalf("first build: exit %d: %s%s", code, out, stderr)
	}
	if out, stderr, code := p.Run("", "tool", "build"); code != 0 || !strings.Contains(out, "= greet (c) up to date") {
		t.Fatalf("second build did not skip: exit %d: %s%s", code, out, stderr)
	}
	if out, _, code := p.Run("", "tool", "build", "--force"); code != 0 || !strings.Contains(out, "✓ greet (c)") {
		t.Fatalf("--force did not rebuild: exit %d: %s", code, out)
	}
	if _, stderr, code := p.Run("", "tool", "build", "gret"); code != 2 || !strings.Contains(stderr, "there are: greet") {
		t.Errorf("an unknown name: exit %d, want 2 naming greet: %s", code, stderr)
	}

	src := filepath.Join(p.Dir, ".toolhost/tools-src/greet/greet.c")
	good, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(src, append(bytes.Clone(good), "\nint broken(void) { return undefined_thing; }\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	// From a subdirectory, the compiler's path climbs to the file.
	if err := os.MkdirAll(filepath.Join(p.Dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := p.Command("tool", "build")
	cmd.Dir = filepath.Join(p.Dir, "sub")
	out, _ := cmd.CombinedOutput()
	if cmd.ProcessState.ExitCode() != 1 || !strings.Contains(string(out), "../.toolhost/tools-src/greet/greet.c:") {
		t.Fatalf("broken build: exit %d, want 1 and the file relative to sub/:\n%s", cmd.ProcessState.ExitCode(), out)
	}
	listing, stderr, code := p.Run("", "tools")
	if code != 0 || !regexp.MustCompile(`(?m)^greet\s+wasm \(stale\)`).MatchString(listing) {
		t.Errorf("tools does not mark greet stale: exit %d:\n%s", code, listing)
	}
	if !strings.Contains(stderr, "greet is stale") || !strings.Contains(stderr, "undefined_thing") {
		t.Errorf("tools does not say why greet is stale:\n%s", stderr)
	}
	if out, stderr, code := p.Run("", "call", "greet", `{"name":"Ada"}`); code != 0 || strings.TrimSpace(out) != "Hello, Ada!" {
		t.Errorf("the old module is not served: exit %d: %q %s", code, out, stderr)
	}

	if err := os.WriteFile(src, good, 0o644); err != nil {
		t.Fatal(err)
	}
	// The source is as the module was built from: nothing to compile.
	if out, stderr, code := p.Run("", "tool", "build"); code != 0 || !strings.Contains(out, "= greet (c) up to date") {
		t.Fatalf("fixed build: exit %d: %s%s", code, out, stderr)
	}
	if listing, stderr, _ := p.Run("", "tools"); strings.Contains(listing+stderr, "stale") {
		t.Errorf("greet is still marked stale after a good build:\n%s%s", listing, stderr)
	}
}

func TestToolBuildShowsEachCompileWithItsTimeAtATerminal(t *testing.T) {
	t.Parallel()
	needC(t)
	p := e2e.NewProject(t)
	p.Env = []string{"NO_COLOR=1"}
	if _, stderr, code := p.Run("", "tool", "new", "greet", "--lang", "c"); code != 0 {
		t.Fatalf("tool new: exit %d: %s", code, stderr)
	}
	shown, code := p.RunTerminal("", "tool", "build")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, shown)
	}
	if !strings.Contains(shown, "· compiling greet (c)…") || !regexp.MustCompile(`· compiled greet \(c\) in [0-9.]+m?s`).MatchString(shown) {
		t.Errorf("no progress at the terminal:\n%s", shown)
	}
	// In a pipe, only the results.
	if _, stderr, _ := p.Run("", "tool", "build", "--force"); strings.Contains(stderr, "compiling") {
		t.Errorf("progress printed to a pipe:\n%s", stderr)
	}
}

func TestAWasmToolsTitleDefaultsToItsIdAndFirstArgument(t *testing.T) {
	t.Parallel()
	needC(t)
	p := e2e.NewProject(t)
	if _, stderr, code := p.Run("", "tool", "new", "greet", "--lang", "c"); code != 0 {
		t.Fatalf("tool new: exit %d: %s", code, stderr)
	}
	if _, stderr, code := p.Run("", "tool", "build"); code != 0 {
		t.Fatalf("build: exit %d: %s", code, stderr)
	}
	out, stderr, code := p.Run("", "call", "greet", `{"name":"Ada"}`, "--json")
	if code != 0 || !strings.Contains(out, `"title": "greet Ada"`) {
		t.Fatalf("exit %d: %s%s", code, out, stderr)
	}
}
