package cli_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/toolhost/toolhost/internal/testkit/e2e"
)

var echoGuest struct {
	once sync.Once
	path string
	err  error
}

// echoWasm builds plugins/wasm/testdata/guests/echo (a Go guest that echoes its
// text) once per test process. Without a Go toolchain able to target wasip1
// the test is skipped, and fails under CI=true.
func echoWasm(t *testing.T) string {
	t.Helper()
	echoGuest.once.Do(func() {
		// In the build cache, as the other guests (a temporary folder per
		// run was left behind every time).
		echoGuest.path, echoGuest.err = e2e.GoBuild(filepath.Join("..", "..", "plugins", "wasm", "testdata", "guests"), wasip1, "-buildmode=c-shared", "./echo")
		if echoGuest.err != nil {
			echoGuest.err = fmt.Errorf("build the echo guest: %w", echoGuest.err)
		}
	})
	if echoGuest.err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(echoGuest.err)
		}
		t.Skipf("skipped: %v", echoGuest.err)
	}
	return echoGuest.path
}

// probeProject is a project with the echo guest as the wasm tool "probe"
// and the given config.
func probeProject(t *testing.T, cfg string) *e2e.Project {
	t.Helper()
	wasm, err := os.ReadFile(echoWasm(t))
	if err != nil {
		t.Fatal(err)
	}
	p := e2e.NewProject(t)
	p.Write(".toolhost/tool/probe.wasm", string(wasm))
	p.ShareCompiled()
	p.Write("toolhost.json", cfg)
	return p
}

// TestAWasmToolTheAgentIsNotOfferedCannotBeCalledThroughTheBinary is the
// issue's case: a wasm tool with "tools": {"probe": false} and "permission":
// {"probe": "deny"} is not listed, and neither `toolhost call probe` nor a
// batch reaches it. The same module with only an "ask" rule is asked about
// under its own id.
func TestAWasmToolTheAgentIsNotOfferedCannotBeCalledThroughTheBinary(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary and a wasm guest")
	}
	batch := `{"tool_calls":[{"tool":"probe","parameters":{"text":"via batch"}}]}`

	t.Run("the control: an enabled probe is listed and runs directly and in a batch", func(t *testing.T) {
		t.Parallel()
		p := probeProject(t, `{"experimental": {"batch_tool": true}}`)
		if out, stderr, code := p.Run("", "tools"); code != 0 || !strings.Contains(out, "probe") {
			t.Fatalf("tools: exit %d, probe not listed:\n%s%s", code, out, stderr)
		}
		if out, stderr, code := p.Run("", "call", "probe", `{"text":"hi"}`); code != 0 || !strings.Contains(out, `"text":"hi"`) {
			t.Fatalf("call probe: exit %d: %s%s", code, out, stderr)
		}
		if out, stderr, code := p.Run("", "call", "batch", batch); code != 0 || !strings.Contains(out, "via batch") || !strings.Contains(out, "All 1 tools executed successfully") {
			t.Fatalf("call batch: exit %d: %s%s", code, out, stderr)
		}
	})

	for _, cfg := range []string{
		`{"tools": {"probe": false}, "permission": {"probe": "deny"}, "experimental": {"batch_tool": true}}`,
		`{"tools": {"probe": false}, "experimental": {"batch_tool": true}}`,
		`{"permission": {"probe": "deny"}, "experimental": {"batch_tool": true}}`,
	} {
		t.Run(cfg, func(t *testing.T) {
			t.Parallel()
			p := probeProject(t, cfg)
			out, stderr, code := p.Run("", "tools", "--json")
			if code != 0 {
				t.Fatalf("tools: exit %d: %s", code, stderr)
			}
			var tools []struct{ ID string }
			if err := json.Unmarshal([]byte(out), &tools); err != nil || len(tools) == 0 {
				t.Fatalf("tools --json: %v\n%s", err, out)
			}
			for _, tool := range tools {
				if tool.ID == "probe" {
					t.Errorf("toolhost tools lists the disabled probe")
				}
			}
			out, stderr, code = p.Run("", "call", "probe", `{"text":"hi"}`)
			if code != 3 || strings.Contains(out, `"text":"hi"`) || !strings.Contains(stderr, `tool "probe" is not offered to the build agent`) {
				t.Errorf("call probe: exit %d, want 3 and the refusal; stdout %q stderr %q", code, out, stderr)
			}
			out, stderr, code = p.Run("", "call", "batch", batch)
			if code != 0 || strings.Contains(out, "via batch") || !strings.Contains(out, `tool "probe" is not available`) {
				t.Errorf("call batch: exit %d, want the probe call refused inside the batch: %s%s", code, out, stderr)
			}
		})
	}

	t.Run("an ask rule for the wasm tool's id is asked before it runs", func(t *testing.T) {
		t.Parallel()
		p := probeProject(t, `{"permission": {"probe": "ask"}}`)
		out, stderr, code := p.Run("", "call", "probe", `{"text":"hi"}`)
		if code != 4 || strings.Contains(out, `"text":"hi"`) || !strings.Contains(stderr, `"permission": {"probe": {"*": "allow"}}`) {
			t.Errorf("without --yes: exit %d, want 4 (nobody could answer) and the rule to add; stdout %q stderr %q", code, out, stderr)
		}
		if out, stderr, code := p.Run("", "call", "probe", `{"text":"hi"}`, "--yes"); code != 0 || !strings.Contains(out, `"text":"hi"`) {
			t.Errorf("with --yes: exit %d: %s%s", code, out, stderr)
		}
	})
}
