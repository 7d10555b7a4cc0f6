package cli_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/testkit/agenttest"
	"github.com/toolhost/toolhost/internal/testkit/e2e"
)

// The tests in this file are a new user's first commands, through the
// built binary.

func TestVersionIsAFlagAndACommand(t *testing.T) {
	t.Parallel()
	p := e2e.NewProject(t)
	flag, stderr, code := p.Run("", "--version")
	if code != 0 || !strings.HasPrefix(flag, "toolhost ") {
		t.Fatalf("--version: exit %d: %q %s", code, flag, stderr)
	}
	cmd, _, _ := p.Run("", "version")
	if cmd != flag {
		t.Errorf("toolhost version says %q, --version %q", cmd, flag)
	}
}

func TestColourFollowsTheTerminalAndTheUsersWishes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		env  []string
		want bool
	}{
		{"output to a pipe is plain", nil, false},
		{"FORCE_COLOR colours a pipe", []string{"FORCE_COLOR=1"}, true},
		{"FORCE_COLOR=0 does not", []string{"FORCE_COLOR=0"}, false},
		{"NO_COLOR wins over FORCE_COLOR", []string{"FORCE_COLOR=1", "NO_COLOR=1"}, false},
		{"an empty NO_COLOR is unset", []string{"FORCE_COLOR=1", "NO_COLOR="}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := e2e.NewProject(t)
			p.Env = tc.env
			_, stderr, code := p.Run("", "call", "no-such-tool")
			if code != 2 {
				t.Fatalf("exit %d, want 2: %s", code, stderr)
			}
			if got := strings.Contains(stderr, "\x1b["); got != tc.want {
				t.Errorf("coloured = %v, want %v: %q", got, tc.want, stderr)
			}
		})
	}
}

func TestAtATerminalColourIsOnUnlessNoColorIsSet(t *testing.T) {
	t.Parallel()
	for _, noColor := range []bool{false, true} {
		p := e2e.NewProject(t)
		if noColor {
			p.Env = []string{"NO_COLOR=1"}
		}
		shown, code := p.RunTerminal("", "call", "no-such-tool")
		if code != 2 {
			t.Fatalf("exit %d, want 2: %s", code, shown)
		}
		if got := strings.Contains(shown, "\x1b["); got == noColor {
			t.Errorf("NO_COLOR set: %v; coloured: %v: %q", noColor, got, shown)
		}
	}
}

func TestBashOutputIsShownOnceAtATerminalAndWhollyInAPipe(t *testing.T) {
	t.Parallel()
	args := []string{"call", "bash", `{"command":"echo out-$((6*7)); echo second-$((6*7))","description":"Print two lines"}`, "--yes"}
	p := e2e.NewProject(t)
	shown, code := p.RunTerminal("", args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, shown)
	}
	for _, line := range []string{"out-42", "second-42"} {
		if n := strings.Count(shown, line); n != 1 {
			t.Errorf("the terminal shows %q %d times, want once:\n%s", line, n, shown)
		}
	}
	if !strings.Contains(shown, "Print two lines") {
		t.Errorf("the terminal does not show the call's title:\n%s", shown)
	}
	// In a pipe stdout carries the whole output, whatever stderr showed.
	out, stderr, code := p.Run("", args...)
	if code != 0 || out != "out-42\nsecond-42\n" {
		t.Fatalf("piped: exit %d, stdout %q, stderr %s", code, out, stderr)
	}
}

func TestNoToolDescriptionStartsWithAListDash(t *testing.T) {
	t.Parallel()
	p := e2e.NewProject(t)
	out, stderr, code := p.Run("", "tools", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var tools []struct{ ID, Description string }
	if err := json.Unmarshal([]byte(out), &tools); err != nil || len(tools) < 10 {
		t.Fatalf("tools --json: %v, %d tools", err, len(tools))
	}
	for _, tool := range tools {
		d := strings.TrimSpace(tool.Description)
		if strings.HasPrefix(d, "-") || d == "" {
			t.Errorf("%s: description starts %q", tool.ID, firstChars(d, 40))
		}
	}
	listing, _, _ := p.Run("", "tools")
	if strings.Contains(listing, "  - ") {
		t.Errorf("tools lists a description starting with a dash:\n%s", listing)
	}
}

func firstChars(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

func TestTheRuleSuggestedForAFileIsThatFile(t *testing.T) {
	t.Parallel()
	p := e2e.NewProject(t)
	p.Write(".env", "SECRET=1\n")
	_, stderr, code := p.Run("", "call", "read", `{"filePath":".env"}`)
	if code != 4 {
		t.Fatalf("exit %d, want 4 (needs approval, nobody to answer): %s", code, stderr)
	}
	if !strings.Contains(stderr, `{"read": {".env": "allow"}}`) {
		t.Errorf("the refusal does not suggest a rule for .env alone: %s", stderr)
	}
	if strings.Contains(stderr, `"*": "allow"`) {
		t.Errorf("the refusal suggests allowing every file: %s", stderr)
	}
}

func TestTheAlwaysAnswerAtATerminalCoversTheFileAskedAboutOnly(t *testing.T) {
	t.Parallel()
	p := e2e.NewProject(t)
	p.Write(".env", "SECRET=1\n")
	p.Write("prod.env", "SECRET=2\n")
	p.Env = []string{"NO_COLOR=1"}
	shown, code := p.RunTerminal("a\n", "call", "read", `{"filePath":".env"}`)
	if code != 0 || !strings.Contains(shown, "[a]lways (.env)") {
		t.Fatalf("exit %d; the prompt does not offer .env alone:\n%s", code, shown)
	}
	// The approval lasts for the project's session: .env again is not
	// asked about, another .env file is.
	if out, stderr, code := p.Run("", "call", "read", `{"filePath":".env"}`); code != 0 || !strings.Contains(out, "SECRET=1") {
		t.Errorf("reading .env again: exit %d: %s%s", code, out, stderr)
	}
	if _, stderr, code := p.Run("", "call", "read", `{"filePath":"prod.env"}`); code != 4 {
		t.Errorf("prod.env was let through by the answer about .env: exit %d: %s", code, stderr)
	}
}

func TestCallsFromAShellShareOneSessionPerProject(t *testing.T) {
	t.Parallel()
	p := e2e.NewProject(t)
	p.Write("notes.txt", "old\n")
	write := `{"filePath":"notes.txt","content":"new\n"}`
	if _, stderr, code := p.Run("", "call", "write", write); code == 0 || !strings.Contains(stderr, "read") {
		t.Fatalf("writing an unread file: exit %d, want a refusal naming read: %s", code, stderr)
	}
	if _, stderr, code := p.Run("", "call", "read", `{"filePath":"notes.txt"}`); code != 0 {
		t.Fatalf("read: exit %d: %s", code, stderr)
	}
	if _, stderr, code := p.Run("", "call", "write", write, "--session", "elsewhere"); code == 0 {
		t.Errorf("another session saw the default session's read: %s", stderr)
	}
	if _, stderr, code := p.Run("", "call", "write", write); code != 0 {
		t.Fatalf("write after read from the same project: exit %d: %s", code, stderr)
	}
	// A second project with the same user does not share the session.
	q := e2e.NewProject(t)
	q.Home = p.Home
	q.Write("notes.txt", "old\n")
	if _, stderr, code := q.Run("", "call", "write", write); code == 0 {
		t.Errorf("another project's calls shared the first project's session: %s", stderr)
	}
}

func TestTyposInToolIdsAndPermissionKeysAreWarnedAboutWithTheirLine(t *testing.T) {
	t.Parallel()
	p := e2e.NewProject(t)
	p.Write("toolhost.jsonc", "{\n  // my rules\n  \"permission\": {\"bsah\": {\"git *\": \"allow\"}, \"bash\": \"ask\"},\n  \"tools\": {\n    \"webfech\": false\n  }\n}\n")
	_, stderr, code := p.Run("", "tools")
	if code != 0 {
		t.Fatalf("a config with typos is still valid: exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		`toolhost.jsonc:3: permission key "bsah" names no tool or permission toolhost knows; its rules apply to nothing (did you mean "bash"?)`,
		`toolhost.jsonc:5: tools key "webfech" names no tool toolhost knows; it turns nothing on or off (did you mean "webfetch"?)`,
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	p.Write("toolhost.jsonc", `{"permission": {"bash": {"git *": "allow"}, "external_directory": "deny", "mcp_*": "deny"}, "tools": {"webfetch": false, "task": false}}`)
	if _, stderr, _ := p.Run("", "tools"); strings.Contains(stderr, "warning") {
		t.Errorf("a config without typos is warned about:\n%s", stderr)
	}
}

func TestAModelWithAnUnknownProviderIsAnErrorNamingTheConfiguredOnes(t *testing.T) {
	t.Parallel()
	p := e2e.NewProject(t)
	p.Write("toolhost.json", `{"provider": {"ollama": {"base_url": "http://127.0.0.1:1/v1"}, "fm": {"base_url": "http://127.0.0.1:1/v1"}}}`)
	_, stderr, code := p.Run("", "run", "--model", "zz9/x", "hello")
	if code != 2 {
		t.Fatalf("exit %d, want 2 (usage): %s", code, stderr)
	}
	for _, want := range []string{`no provider "zz9"`, "configured providers: fm, ollama"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q: %s", want, stderr)
		}
	}
	// A near miss is caught even when a router is set.
	p.Env = []string{"OPENAI_BASE_URL=http://127.0.0.1:1/v1"}
	if _, stderr, code := p.Run("", "run", "--model", "fm2/x", "hello"); code != 2 || !strings.Contains(stderr, `did you mean "fm"?`) {
		t.Errorf("near miss with a router: exit %d: %s", code, stderr)
	}
}

func TestAFailedRunDoesNotOfferToContinue(t *testing.T) {
	t.Parallel()
	w := newRunWorld(t, func(int, agenttest.Request) agenttest.Turn {
		return agenttest.Turn{Status: 400, ErrorMessage: "model not found"}
	})
	_, stderr, code := w.run("hello")
	if code == 0 {
		t.Fatalf("a failed run exits 0: %s", stderr)
	}
	if strings.Contains(stderr, "continue") || strings.Contains(stderr, "--session") {
		t.Errorf("a failed run suggests continuing:\n%s", stderr)
	}
}

func TestARefusalForWantOfAPersonTellsTheModelWhatToDo(t *testing.T) {
	t.Parallel()
	w := newRunWorld(t, calls(agenttest.ToolCall{ID: "c_env", Name: "read", Arguments: `{"filePath":".env"}`}))
	_, stderr, code := w.run("show me the secrets")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	reqs := w.srv.Requests()
	if len(reqs) < 2 {
		t.Fatalf("the model was asked %d times, want 2", len(reqs))
	}
	got := reqs[1].ToolResults()["c_env"]
	for _, want := range []string{"Do not retry it", "tell the user", `"permission": {"read": {".env": "allow"}}`} {
		if !strings.Contains(got, want) {
			t.Errorf("the model's tool result lacks %q: %s", want, got)
		}
	}
	if strings.Contains(got, "pass --yes") {
		t.Errorf("the model is told to pass a flag it cannot pass: %s", got)
	}
}
