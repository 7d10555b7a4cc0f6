package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolhost/toolhost/internal/serve/inbox"
	"github.com/toolhost/toolhost/internal/testkit/e2e"
)

// serverLogURL is the inbox's URL in the line OpenCode logs for a server's
// notifications/message ("MCP server log", with --print-logs on stderr).
var serverLogURL = regexp.MustCompile(`MCP server log.*Waiting for your answer in the toolhost permission inbox: bash echo from-the-inbox — open (http://127\.0\.0\.1:\d+/)`)

// opencodeCallTimeout is OpenCode's MCP call timeout in the test, and
// inboxHeartbeat the time between toolhost's progress repeats: the
// production ratio (60 s against 20 s) shrunk so that the question can
// wait out the timeout in seconds.
const (
	opencodeCallTimeout = 4 * time.Second
	inboxHeartbeat      = time.Second
)

// TestOpenCodeShowsWhereTheInboxIs is issue 30's end-to-end case for the
// inbox: OpenCode 1.18 runs `toolhost mcp --ask-fallback inbox`, the model
// calls toolhost_bash under an "ask" rule, and while the question waits
// OpenCode's log (stderr with --print-logs, its log file otherwise) shows
// the inbox's URL, without the token. `toolhost inbox --print` finds the
// same inbox with the question waiting; answering it through the inbox's
// API lets the call finish in OpenCode with the command's output.
func TestOpenCodeShowsWhereTheInboxIs(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs OpenCode and the built binary")
	}
	opencode := opencodeBin(t)
	p := e2e.NewProject(t)
	p.Write("toolhost.json", `{"permission": {"bash": {"*": "ask"}}, "server": {"inbox_notify": false}}`)
	model := &scriptedModel{results: map[string]string{}, script: []scriptedCall{
		{"toolhost_bash", map[string]any{"command": "echo from-the-inbox", "description": "Say where the answer came from"}},
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
			"command": []string{p.Bin, "mcp", "--ask-fallback", "inbox"},
			"enabled": true,
			// OpenCode ends an MCP call after this long without progress
			// (60 s by default); the question below waits longer, so only
			// the progress toolhost repeats while it waits keeps it alive.
			"timeout":     opencodeCallTimeout.Milliseconds(),
			"environment": map[string]string{"TOOLHOST_INBOX_HEARTBEAT": inboxHeartbeat.String()},
		}},
	})
	p.Write("opencode.json", string(cfg))

	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute) // a guard against a hang, not a measurement
	defer cancel()
	cmd := exec.CommandContext(ctx, opencode, "run", "--print-logs", "--log-level", "WARN", "--format", "json", "Say hello from the shell.")
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
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	stderrPipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var (
		mu     sync.Mutex
		stderr strings.Builder
	)
	urls := make(chan string, 1)
	logLines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderrPipe)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			mu.Lock()
			stderr.WriteString(sc.Text() + "\n")
			mu.Unlock()
			if m := serverLogURL.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case urls <- m[1]:
					logLines <- sc.Text()
				default:
				}
			}
		}
		io.Copy(io.Discard, stderrPipe)
	}()
	stderrTail := func() string { mu.Lock(); defer mu.Unlock(); return tail(stderr.String(), 4000) }

	var url, line string
	select {
	case url = <-urls:
		line = <-logLines
	case <-ctx.Done():
		t.Fatalf("OpenCode's log never showed the inbox's URL\nstderr:\n%s", stderrTail())
	}
	if strings.Contains(line, "token") {
		t.Errorf("OpenCode's log shows the inbox token: %s", line)
	}
	t.Logf("OpenCode's log while the question waits: %s", line)

	// toolhost inbox finds the same inbox, with the question waiting.
	out, errOut, code := p.Run("", "inbox", "--print")
	if code != 0 || !strings.Contains(out, url+"?token=") || !strings.Contains(out, "(1 waiting)") {
		t.Errorf("toolhost inbox --print: exit %d\nstdout: %s\nstderr: %s\nwant %s?token=… (1 waiting)", code, out, errOut, url)
	}

	// Answer after OpenCode's timeout has passed: the call is still
	// there because the waiting question's progress reset it.
	time.Sleep(2 * opencodeCallTimeout)

	// Answer through the inbox's API, with the user's token.
	token, err := inbox.ReadUserToken(filepath.Join(p.Home, ".local/share", "toolhost"))
	if err != nil {
		t.Fatal(err)
	}
	do := func(method, path, body string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(method, strings.TrimSuffix(url, "/")+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+token)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	var list struct {
		Requests []struct {
			ID       string   `json:"id"`
			Patterns []string `json:"patterns"`
		} `json:"requests"`
	}
	res := do("GET", "/api/requests", "")
	json.NewDecoder(res.Body).Decode(&list)
	res.Body.Close()
	if len(list.Requests) != 1 || !strings.Contains(strings.Join(list.Requests[0].Patterns, " "), "echo from-the-inbox") {
		t.Fatalf("the inbox holds %+v; want the bash question", list.Requests)
	}
	res = do("POST", "/api/requests/"+list.Requests[0].ID+"/reply", `{"reply": "once"}`)
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("reply: %s", res.Status)
	}

	if err := cmd.Wait(); err != nil {
		t.Fatalf("opencode run: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderrTail())
	}
	var done bool
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var ev struct {
			Type string `json:"type"`
			Part struct {
				Tool  string `json:"tool"`
				State struct {
					Status string `json:"status"`
					Output string `json:"output"`
				} `json:"state"`
			} `json:"part"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.Type == "tool_use" && ev.Part.Tool == "toolhost_bash" {
			done = ev.Part.State.Status == "completed" && strings.Contains(ev.Part.State.Output, "from-the-inbox")
			if !done {
				t.Errorf("toolhost_bash after the answer: %+v", ev.Part.State)
			}
		}
	}
	if !done {
		t.Errorf("OpenCode reported no completed toolhost_bash call\nstdout:\n%s", tail(stdout.String(), 4000))
	}
}
