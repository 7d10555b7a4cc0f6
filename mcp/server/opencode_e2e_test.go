package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolhost/toolhost/internal/testkit/e2e"
)

// The OpenCode end-to-end test runs OpenCode itself (npm opencode-ai)
// headless against `toolhost mcp --ask-fallback allow`, with a scripted
// OpenAI-compatible model served by the test on loopback.
//
// What OpenCode 1.18 needs to run offline, found by running it without a
// network:
//   - the model catalog fetch at start: OPENCODE_DISABLE_MODELS_FETCH=1
//     (the provider below declares its one model itself);
//   - the update check: OPENCODE_DISABLE_AUTOUPDATE=1 and "autoupdate":
//     false; sharing: OPENCODE_DISABLE_SHARE=1 and "share": "disabled";
//   - default plugins and LSP downloads: OPENCODE_DISABLE_DEFAULT_PLUGINS=1
//     and OPENCODE_DISABLE_LSP_DOWNLOAD=1; Claude Code and external skill
//     discovery are switched off so nothing outside the fresh home is read;
//   - a background `npm install` of @opencode-ai/plugin into its config
//     directory, for local plugins: it runs whatever the environment says,
//     so npm is pointed at the fake server (404 for everything) and told
//     to stay offline; the install fails with a logged warning and the run
//     goes on;
//   - @ai-sdk/openai-compatible, the provider package, ships inside the
//     binary: nothing is installed for it.
//
// `opencode run` also calls the model once without tools to title the
// session; the fake answers such requests with plain text.

// opencodeVersion is the OpenCode the test runs, pinned so a run is
// repeatable; .ci/run installs the same one.
const opencodeVersion = "1.18.33"

var (
	opencodeOnce sync.Once
	opencodePath string
	opencodeErr  error
)

// opencodeBin returns the opencode executable: from $TOOLHOST_OPENCODE_DIR
// (where .ci/run installs it), else from the user cache, installing it
// there with npm when missing. Without npm the test is skipped, except
// under CI=true, where it fails.
func opencodeBin(t *testing.T) string {
	t.Helper()
	opencodeOnce.Do(func() { opencodePath, opencodeErr = installOpencode() })
	if opencodeErr != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("OpenCode is needed for the MCP end-to-end test in CI: %v", opencodeErr)
		}
		t.Skipf("skipped: %v", opencodeErr)
	}
	return opencodePath
}

func installOpencode() (string, error) {
	dir := os.Getenv("TOOLHOST_OPENCODE_DIR")
	if dir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			return "", fmt.Errorf("no cache directory for OpenCode (%v); set TOOLHOST_OPENCODE_DIR", err)
		}
		dir = filepath.Join(cache, "toolhost-e2e", "opencode-"+opencodeVersion)
	}
	bin := filepath.Join(dir, "node_modules", ".bin", "opencode")
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	if _, err := exec.LookPath("npm"); err != nil {
		return "", fmt.Errorf("OpenCode is not installed in %s and npm is not found (%v); install Node.js, or run .ci/run", dir, err)
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", err
	}
	// Install beside and rename into place, so concurrent test processes
	// never see a half-installed tree.
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "install-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	args := []string{"install", "--no-audit", "--no-fund", "--loglevel=error", "--prefix", tmp, "opencode-ai@" + opencodeVersion}
	if out, err := exec.Command("npm", args...).CombinedOutput(); err != nil {
		return "", fmt.Errorf("npm %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, serr := os.Stat(bin); serr == nil {
			return bin, nil // another process won the race
		}
		return "", fmt.Errorf("move the OpenCode install into place: %w", err)
	}
	return bin, nil
}

// scriptedModel is an OpenAI-compatible chat completions endpoint that
// answers a request with tools with the next call of its script (counted
// by the tool results the request carries), and anything else with text.
type scriptedModel struct {
	script []scriptedCall

	mu       sync.Mutex
	tools    map[string]string // tool name → description, as last offered
	results  map[string]string // tool call id → the result OpenCode sent back
	requests int
}

type scriptedCall struct {
	tool string
	args map[string]any
}

func (m *scriptedModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		http.NotFound(w, r) // npm's registry requests end here too
		return
	}
	var req struct {
		Model string `json:"model"`
		Tools []struct {
			Function struct {
				Name        string `json:"name"`
				Description string `json:"description"`
			} `json:"function"`
		} `json:"tools"`
		Messages []struct {
			Role       string          `json:"role"`
			ToolCallID string          `json:"tool_call_id"`
			Content    json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	done := 0
	m.mu.Lock()
	m.requests++
	for _, msg := range req.Messages {
		if msg.Role == "tool" {
			done++
			m.results[msg.ToolCallID] = contentText(msg.Content)
		}
	}
	if len(req.Tools) > 0 {
		m.tools = map[string]string{}
		for _, t := range req.Tools {
			m.tools[t.Function.Name] = t.Function.Description
		}
	}
	m.mu.Unlock()

	w.Header().Set("Content-Type", "text/event-stream")
	send := func(delta map[string]any, finish any) {
		chunk := map[string]any{"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
		b, _ := json.Marshal(chunk)
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
	if len(req.Tools) > 0 && done < len(m.script) {
		c := m.script[done]
		args, _ := json.Marshal(c.args)
		send(map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{
			"index": 0, "id": fmt.Sprintf("call_%d", done), "type": "function",
			"function": map[string]any{"name": c.tool, "arguments": string(args)},
		}}}, nil)
		send(map[string]any{}, "tool_calls")
	} else {
		send(map[string]any{"role": "assistant", "content": "Done."}, nil)
		send(map[string]any{}, "stop")
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// contentText is a message's content, a string or an array of text parts.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

// TestOpenCodeUsesToolhostThroughMCP is the end-to-end case: the
// model reads a file with toolhost_read, edits it with toolhost_edit under
// an "ask" rule — OpenCode cannot answer elicitation, so the ask fallback
// "allow" lets OpenCode's own approval stand, and the edit lands — and a
// toolhost_bash command toolhost's rules deny is refused, whatever the
// fallback. Along the way: the descriptions OpenCode's model reads name
// toolhost's tools as OpenCode does, and task is not offered with no model
// configured for toolhost.
func TestOpenCodeUsesToolhostThroughMCP(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs OpenCode and the built binary")
	}
	opencode := opencodeBin(t)
	p := e2e.NewProject(t)
	notes := p.Write("notes.txt", "hello world\n")
	keep := p.Write("build/keep.txt", "still here\n")
	p.Write("toolhost.json", `{"permission": {"edit": "ask", "bash": {"*": "ask", "rm *": "deny"}}}`)

	model := &scriptedModel{results: map[string]string{}, script: []scriptedCall{
		{"toolhost_read", map[string]any{"filePath": notes}},
		{"toolhost_edit", map[string]any{"filePath": notes, "oldString": "hello world", "newString": "hello toolhost"}},
		{"toolhost_bash", map[string]any{"command": "rm -rf build", "description": "Remove the build folder"}},
	}}
	fake := httptest.NewServer(model)
	defer fake.Close()

	cfg, _ := json.Marshal(map[string]any{
		"$schema":    "https://opencode.ai/config.json",
		"autoupdate": false,
		"share":      "disabled",
		"model":      "fake/scripted",
		"provider": map[string]any{"fake": map[string]any{
			"npm":     "@ai-sdk/openai-compatible",
			"name":    "Scripted fake",
			"options": map[string]any{"baseURL": fake.URL + "/v1", "apiKey": "none"},
			"models":  map[string]any{"scripted": map[string]any{"name": "Scripted", "tool_call": true}},
		}},
		"mcp": map[string]any{"toolhost": map[string]any{
			"type":    "local",
			"command": []string{p.Bin, "mcp", "--ask-fallback", "allow"},
			"enabled": true,
		}},
	})
	p.Write("opencode.json", string(cfg))

	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute) // a guard against a hang, not a measurement
	defer cancel()
	cmd := exec.CommandContext(ctx, opencode, "run", "--format", "json", "Change the greeting in notes.txt, then clean the build folder.")
	cmd.Dir = p.Dir
	cmd.Env = append(p.Environ(),
		"XDG_STATE_HOME="+filepath.Join(p.Home, ".local/state"),
		"OPENCODE_DISABLE_AUTOUPDATE=1",
		"OPENCODE_DISABLE_MODELS_FETCH=1",
		"OPENCODE_DISABLE_SHARE=1",
		"OPENCODE_DISABLE_DEFAULT_PLUGINS=1",
		"OPENCODE_DISABLE_LSP_DOWNLOAD=1",
		"OPENCODE_DISABLE_CLAUDE_CODE=1",
		"OPENCODE_DISABLE_EXTERNAL_SKILLS=1",
		"npm_config_offline=true",
		"npm_config_registry="+fake.URL+"/npm/",
	)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("opencode run: %v\nstdout:\n%s\nstderr:\n%s", err, out, tail(stderr.String(), 4000))
	}

	// What OpenCode reports of each tool call (its JSON event stream).
	type toolState struct {
		Status string `json:"status"`
		Output string `json:"output"`
		Error  string `json:"error"`
	}
	calls := map[string]toolState{}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var ev struct {
			Type string `json:"type"`
			Part struct {
				Tool  string    `json:"tool"`
				State toolState `json:"state"`
			} `json:"part"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.Type == "tool_use" {
			calls[ev.Part.Tool] = ev.Part.State
		}
	}
	if c := calls["toolhost_read"]; c.Status != "completed" || !strings.Contains(c.Output, "hello world") {
		t.Errorf("toolhost_read: %+v; want it completed with the file's text", c)
	}
	if c := calls["toolhost_edit"]; c.Status != "completed" {
		t.Errorf("toolhost_edit under an ask rule with --ask-fallback allow: %+v; want it completed", c)
	}
	if got, _ := os.ReadFile(notes); string(got) != "hello toolhost\n" {
		t.Errorf("notes.txt holds %q; the edit did not land", got)
	}
	if c := calls["toolhost_bash"]; c.Status != "error" || !strings.Contains(c.Error+c.Output, `denied for "rm -rf build" by rule bash "rm *": deny`) {
		t.Errorf("toolhost_bash rm -rf build: %+v; want toolhost's denial", c)
	}
	if _, err := os.Stat(keep); err != nil {
		t.Errorf("the denied rm ran: %v", err)
	}

	model.mu.Lock()
	defer model.mu.Unlock()
	if res := model.results["call_2"]; !strings.Contains(res, "denied") {
		t.Errorf("the model was not told of the denial; it got %q", res)
	}
	if d := model.tools["toolhost_edit"]; !strings.Contains(d, "toolhost_read tool") {
		t.Errorf("toolhost_edit's description does not name toolhost_read as OpenCode calls it:\n%s", d)
	}
	if _, ok := model.tools["toolhost_task"]; ok {
		t.Errorf("toolhost_task is offered although toolhost has no model for subagents")
	}
	if _, ok := model.tools["toolhost_question"]; ok {
		t.Errorf("toolhost_question is offered although nobody can answer it over MCP")
	}
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}
