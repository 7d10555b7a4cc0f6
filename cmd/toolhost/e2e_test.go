package main_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/engines/lsp/lsptest"
	"github.com/toolhost/toolhost/internal/testkit/e2e"
)

func TestMain(m *testing.M) {
	// The test binary doubles as a fake language server (lsptest).
	lsptest.ServeIfAsked()
	code := pg.Main(m) // runs the tests; stops PostgreSQL if one started
	e2e.Cleanup()
	os.Exit(code)
}

func TestToolsListsTheBuiltInToolsAsTextAndJSON(t *testing.T) {
	t.Parallel()
	e := e2e.NewProject(t)
	out, stderr, code := e.Run("", "tools")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, id := range []string{"read", "write", "edit", "glob", "grep", "bash", "webfetch", "todowrite"} {
		if !strings.Contains(out, "\n"+id+" ") {
			t.Errorf("tools output lacks %s:\n%s", id, out)
		}
	}
	out, _, code = e.Run("", "tools", "--json", "--model", "gpt-5")
	var tools []struct {
		ID          string          `json:"id"`
		Source      string          `json:"source"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	}
	if err := json.Unmarshal([]byte(out), &tools); err != nil || code != 0 {
		t.Fatalf("tools --json: %v (exit %d)\n%s", err, code, out)
	}
	seen := map[string]bool{}
	for _, tl := range tools {
		seen[tl.ID] = true
		if tl.Source != "builtin" || tl.Description == "" || !json.Valid(tl.Parameters) {
			t.Errorf("tool %s: incomplete entry %+v", tl.ID, tl)
		}
	}
	if !seen["apply_patch"] || seen["edit"] {
		t.Errorf("gpt-5 should get apply_patch instead of edit: %v", seen)
	}
}

func TestCallRunsToolsAndMapsFailuresToExitCodes(t *testing.T) {
	t.Parallel()
	e := e2e.NewProject(t)
	e.Write("hello.txt", "hello\nworld\n")
	e.Write(".toolhost/toolhost.jsonc", `{
  // comments are fine
  "permission": {"bash": {"*": "ask", "echo *": "allow", "rm *": "deny"}},
}`)
	tests := []struct {
		name     string
		stdin    string
		args     []string
		code     int
		stdout   string
		stderrIn string
	}{
		{"read prints numbered lines", "", []string{"call", "read", `{"filePath":"hello.txt"}`}, 0, "2: world", ""},
		{"arguments can come from stdin", `{"filePath":"hello.txt"}`, []string{"call", "read", "-"}, 0, "1: hello", ""},
		{"an allowed command runs", "", []string{"call", "bash", `{"command":"echo hi","description":"Say hi"}`}, 0, "hi", ""},
		{"a denied command exits 3 naming the rule", "", []string{"call", "bash", `{"command":"rm -rf x","description":"Remove"}`}, 3, "", "rm *"},
		{"an ask without a terminal is refused with the way to allow it", "", []string{"call", "bash", `{"command":"ls","description":"List"}`}, 4, "", "--yes"},
		{"--yes answers asks once", "", []string{"call", "bash", `{"command":"ls","description":"List"}`, "--yes"}, 0, "hello.txt", ""},
		{"an unknown tool is a usage error", "", []string{"call", "nosuch", `{}`}, 2, "", "unknown tool"},
		{"arguments that are not JSON are a usage error", "", []string{"call", "read", `{"filePath":`}, 2, "", "not valid JSON"},
		{"schema violations are a usage error listing the problem", "", []string{"call", "read", `{}`}, 2, "", "filePath"},
		{"a tool failure exits 1", "", []string{"call", "read", `{"filePath":"missing.txt"}`}, 1, "", "not found"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, stderr, code := e.Run(tc.stdin, tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tc.code, out, stderr)
			}
			if !strings.Contains(out, tc.stdout) {
				t.Errorf("stdout lacks %q:\n%s", tc.stdout, out)
			}
			if !strings.Contains(stderr, tc.stderrIn) {
				t.Errorf("stderr lacks %q:\n%s", tc.stderrIn, stderr)
			}
		})
	}
}

func TestCallJSONPrintsTheWholeResultAndSessionsPersist(t *testing.T) {
	t.Parallel()
	e := e2e.NewProject(t)
	out, stderr, code := e.Run("", "call", "todowrite", `{"todos":[{"content":"ship it","status":"pending","priority":"high"}]}`, "--session", "s1", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var res struct {
		Title       string         `json:"title"`
		Output      string         `json:"output"`
		Metadata    map[string]any `json:"metadata"`
		Attachments []any          `json:"attachments"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Metadata == nil || res.Attachments == nil {
		t.Fatalf("--json result incomplete: %v\n%s", err, out)
	}
	out, _, _ = e.Run("", "call", "todoread", `{}`, "--session", "s1")
	if !strings.Contains(out, "ship it") {
		t.Errorf("todo did not persist across invocations of one session:\n%s", out)
	}
	out, _, _ = e.Run("", "call", "todoread", `{}`, "--session", "s2")
	if strings.Contains(out, "ship it") {
		t.Errorf("todo leaked into another session:\n%s", out)
	}
}

func TestWriteRequiresAReadInTheSameSession(t *testing.T) {
	t.Parallel()
	e := e2e.NewProject(t)
	e.Write("notes.txt", "v1\n")
	e.Write(".toolhost/toolhost.json", `{"permission": {"edit": "allow"}}`)
	args := `{"filePath":"notes.txt","content":"v2\n"}`
	if _, stderr, code := e.Run("", "call", "write", args, "--session", "w"); code != 1 || !strings.Contains(stderr, "read") {
		t.Fatalf("write before read: exit %d, stderr %s", code, stderr)
	}
	if _, stderr, code := e.Run("", "call", "read", `{"filePath":"notes.txt"}`, "--session", "w"); code != 0 {
		t.Fatalf("read: %s", stderr)
	}
	if _, stderr, code := e.Run("", "call", "write", args, "--session", "w"); code != 0 {
		t.Fatalf("write after read in the same session: exit %d: %s", code, stderr)
	}
	b, _ := os.ReadFile(filepath.Join(e.Dir, "notes.txt"))
	if string(b) != "v2\n" {
		t.Errorf("file = %q", b)
	}
}

func TestPermissionsExplainPrintsTheDecisionFirstAndTheDecidingRule(t *testing.T) {
	t.Parallel()
	e := e2e.NewProject(t)
	e.Write("toolhost.json", `{
  "permission": {
    "bash": {"*": "ask", "git *": "allow"}
  }
}`)
	out, stderr, code := e.Run("", "permissions", "explain", "bash", "git status")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(out, "\n")
	if lines[0] != "allow" {
		t.Errorf("first line = %q, want allow\n%s", lines[0], out)
	}
	if !strings.Contains(out, "toolhost.json:3") || !strings.Contains(out, `"git *"`) {
		t.Errorf("deciding rule with file and line missing:\n%s", out)
	}
	out, _, _ = e.Run("", "permissions", "explain", "read", ".env")
	if !strings.HasPrefix(out, "ask\n") {
		t.Errorf("reading .env should ask by default:\n%s", out)
	}
}

func TestPermissionsExplainBashRunsTheSameAnalysisAsACall(t *testing.T) {
	t.Parallel()
	e := e2e.NewProject(t)
	e.Write("toolhost.json", `{"permission": {"bash": {"*": "allow", "rm *": "deny"}}}`)
	tests := []struct{ command, first, line string }{
		{"git status && rm -rf x", "deny", `deny  bash "rm -rf x"`},
		{`\rm f`, "deny", `deny  bash "rm f"`},
		{"env LC_ALL=C rm f", "deny", `deny  bash "rm f"`},
		{"x=rm; $x f", "deny", `deny  bash "$x f" (unresolvable`},
		{"git status", "allow", `allow bash "git status"`},
	}
	for _, tt := range tests {
		out, stderr, code := e.Run("", "permissions", "explain", "bash", tt.command)
		if code != 0 {
			t.Fatalf("explain %q: exit %d: %s", tt.command, code, stderr)
		}
		if first := strings.SplitN(out, "\n", 2)[0]; first != tt.first || !strings.Contains(out, tt.line) {
			t.Errorf("explain %q: first line %q, want %q, and a line %q:\n%s", tt.command, first, tt.first, tt.line, out)
		}
	}
	// The same command through a real call is refused the same way.
	_, stderr, code := e.Run(`{"command":"git status && rm -rf x","description":"x"}`, "call", "bash", "-")
	if code == 0 || !strings.Contains(stderr, "rm *") {
		t.Errorf("call bash: exit %d, stderr %q; want a denial naming rm *", code, stderr)
	}
}

func TestVersionAndHelpWork(t *testing.T) {
	t.Parallel()
	e := e2e.NewProject(t)
	if out, _, code := e.Run("", "version"); code != 0 || !strings.HasPrefix(out, "toolhost ") {
		t.Errorf("version: %d %q", code, out)
	}
	for _, cmd := range [][]string{{"call", "--help"}, {"tools", "--help"}, {"permissions", "explain", "--help"}} {
		out, _, code := e.Run("", cmd...)
		if code != 0 || !strings.Contains(out, "Example") && !strings.Contains(out, "Examples") {
			t.Errorf("%v: exit %d, no example:\n%s", cmd, code, out)
		}
	}
	if _, _, code := e.Run("", "nosuch"); code != 2 {
		t.Errorf("unknown command exit %d, want 2", code)
	}
}

func TestABrokenWasmModuleIsReportedAndEverythingElseStillLoads(t *testing.T) {
	t.Parallel()
	e := e2e.NewProject(t)
	e.Write(".toolhost/tool/broken.wasm", "this is not webassembly")
	out, stderr, code := e.Run("", "tools")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "broken.wasm") {
		t.Errorf("stderr does not report the broken module:\n%s", stderr)
	}
	if !strings.Contains(out, "\nread ") {
		t.Errorf("built-in tools missing after a broken module:\n%s", out)
	}
}

func TestToolNewScaffoldsASourceAndRefusesBadInput(t *testing.T) {
	t.Parallel()
	e := e2e.NewProject(t)
	if _, stderr, code := e.Run("", "tool", "build"); code != 1 || !strings.Contains(stderr, "toolhost tool new") {
		t.Errorf("build without sources: exit %d, stderr %s", code, stderr)
	}
	if _, stderr, code := e.Run("", "tool", "new", "x", "--lang", "cobol"); code != 2 || !strings.Contains(stderr, "choose go, c, rust, assemblyscript or d") {
		t.Errorf("unknown language: exit %d, stderr %s", code, stderr)
	}
	out, stderr, code := e.Run("", "tool", "new", "greeter")
	if code != 0 {
		t.Fatalf("tool new: exit %d: %s", code, stderr)
	}
	src := filepath.Join(e.Dir, ".toolhost", "tools-src", "greeter")
	if !strings.Contains(out, src) {
		t.Errorf("output does not name %s: %s", src, out)
	}
	for _, f := range []string{"main.go", "go.mod"} {
		if _, err := os.Stat(filepath.Join(src, f)); err != nil {
			t.Errorf("scaffold lacks %s: %v", f, err)
		}
	}
	if _, _, code := e.Run("", "tool", "new", "greeter"); code != 2 {
		t.Errorf("scaffolding over an existing tool: exit %d, want 2", code)
	}
}

func TestToolsJSONShowsSchemasAsTheModelsProviderReceivesThem(t *testing.T) {
	t.Parallel()
	e := e2e.NewProject(t)
	e.Write("toolhost.json", `{"provider": {"openai": {"strict": true}}}`)
	out, stderr, code := e.Run("", "tools", "--json", "--model", "openai/gpt-4.1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var tools []struct {
		ID         string `json:"id"`
		Parameters struct {
			Required             []string       `json:"required"`
			Properties           map[string]any `json:"properties"`
			AdditionalProperties *bool          `json:"additionalProperties"`
		} `json:"parameters"`
	}
	if err := json.Unmarshal([]byte(out), &tools); err != nil {
		t.Fatal(err)
	}
	for _, tl := range tools {
		if tl.ID != "read" {
			continue
		}
		p := tl.Parameters
		if p.AdditionalProperties == nil || *p.AdditionalProperties || len(p.Required) != len(p.Properties) {
			t.Errorf("read's schema is not in OpenAI strict form: %+v", p)
		}
		return
	}
	t.Fatal("read missing")
}
