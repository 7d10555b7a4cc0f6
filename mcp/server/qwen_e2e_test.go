package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolhost/toolhost/internal/serve/inbox"
	"github.com/toolhost/toolhost/internal/testkit/e2e"
)

// The Qwen Code end-to-end test runs Qwen Code itself (npm
// @qwen-code/qwen-code) headless, `qwen -o stream-json`, against `toolhost
// mcp --ask-fallback inbox` with the server entry "trust": true — the
// headless setup docs/mcp.md gives — and the scripted model of the
// OpenCode test, through Qwen's OpenAI-compatible provider.

// qwenVersion is the Qwen Code the test runs; .ci/run installs the same.
const qwenVersion = "0.15.10"

var (
	qwenOnce sync.Once
	qwenPath string
	qwenErr  error
)

// qwenBin returns the qwen executable: from $TOOLHOST_QWEN_DIR (where
// .ci/run installs it), else the user cache, installing it there with npm
// when missing. Without npm the test is skipped, except under CI=true.
func qwenBin(t *testing.T) string {
	t.Helper()
	qwenOnce.Do(func() {
		qwenPath, qwenErr = installNpmCLI("TOOLHOST_QWEN_DIR", "qwen-"+qwenVersion, "@qwen-code/qwen-code@"+qwenVersion, "qwen")
	})
	if qwenErr != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("Qwen Code is needed for the MCP end-to-end test in CI: %v", qwenErr)
		}
		t.Skipf("skipped: %v", qwenErr)
	}
	return qwenPath
}

// installNpmCLI finds (or installs) an npm package's program in $envDir,
// else in the user cache under toolhost-e2e/<dirName>.
func installNpmCLI(envDir, dirName, pkg, bin string) (string, error) {
	dir := os.Getenv(envDir)
	if dir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			return "", err
		}
		dir = filepath.Join(cache, "toolhost-e2e", dirName)
	}
	path := filepath.Join(dir, "node_modules", ".bin", bin)
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	if _, err := exec.LookPath("npm"); err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "install-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	if out, err := exec.Command("npm", "install", "--no-audit", "--no-fund", "--loglevel=error", "--prefix", tmp, pkg).CombinedOutput(); err != nil {
		return "", &exec.Error{Name: "npm install " + pkg, Err: &npmError{out: string(out), err: err}}
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, serr := os.Stat(path); serr == nil {
			return path, nil
		}
		return "", err
	}
	return path, nil
}

type npmError struct {
	out string
	err error
}

func (e *npmError) Error() string { return e.err.Error() + "\n" + e.out }

// TestQwenCodeHeadlessUsesToolhostsNamesAndInbox: Qwen Code introduces
// itself as qwen-cli-mcp-client-toolhost and calls the tools
// mcp__toolhost__*, so what its model reads from toolhost names them so
// (the read-before-write refusal here);
// headless with "trust": true it passes the calls on to toolhost, whose
// "ask" rule parks the bash command in the inbox; Qwen shows the inbox's
// URL in the call's progress (its stream-json output), and once the
// question is answered the command's output comes back.
func TestQwenCodeHeadlessUsesToolhostsNamesAndInbox(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs Qwen Code and the built binary")
	}
	qwen := qwenBin(t)
	p := e2e.NewProject(t)
	p.Write("toolhost.json", `{"permission": {"bash": {"*": "ask"}, "edit": "allow"}, "server": {"inbox_notify": false}}`)
	notes := p.Write("notes.txt", "hello\n")
	model := &scriptedModel{results: map[string]string{}, script: []scriptedCall{
		{"mcp__toolhost__bash", map[string]any{"command": "echo from-qwen", "description": "Say hello"}},
		// Unread, so refused with the read to make, named as Qwen calls it.
		{"mcp__toolhost__write", map[string]any{"filePath": notes, "content": "bye\n"}},
	}}
	fake := httptest.NewServer(model)
	defer fake.Close()
	settings, _ := json.Marshal(map[string]any{
		"mcpServers": map[string]any{"toolhost": map[string]any{
			"command": p.Bin,
			"args":    []string{"mcp", "--ask-fallback", "inbox"},
			"trust":   true,
		}},
		"privacy": map[string]any{"usageStatisticsEnabled": false},
		"general": map[string]any{"disableAutoUpdate": true, "disableUpdateNag": true},
	})
	p.Write(".qwen/settings.json", string(settings))

	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute) // a guard against a hang
	defer cancel()
	cmd := exec.CommandContext(ctx, qwen, "--auth-type", "openai", "--openai-base-url", fake.URL+"/v1", "--openai-api-key", "none",
		"-m", "scripted", "-o", "stream-json", "--include-partial-messages", "Say hello from the shell.")
	cmd.Dir = p.Dir
	cmd.Env = append(p.Environ(), "OPENAI_API_KEY=none", "OPENAI_BASE_URL="+fake.URL+"/v1", "OPENAI_MODEL=scripted",
		"npm_config_offline=true", "NO_BROWSER=1")
	stdoutPipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var (
		mu  sync.Mutex
		out strings.Builder
	)
	shown := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdoutPipe)
		sc.Buffer(nil, 4<<20)
		for sc.Scan() {
			mu.Lock()
			out.WriteString(sc.Text() + "\n")
			mu.Unlock()
			if strings.Contains(sc.Text(), "Waiting for your answer in the toolhost permission inbox") {
				select {
				case shown <- sc.Text():
				default:
				}
			}
		}
		io.Copy(io.Discard, stdoutPipe)
	}()
	outText := func() string { mu.Lock(); defer mu.Unlock(); return out.String() }

	// The question reaches the inbox; Qwen shows where.
	dataDir := filepath.Join(p.Home, ".local/share", "toolhost")
	var url string
	for url == "" {
		if recs, _ := inbox.Published(dataDir, p.Dir); len(recs) > 0 {
			url = recs[0].URL
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("no inbox was started\nstdout:\n%s\nstderr:\n%s", tail(outText(), 4000), tail(stderr.String(), 4000))
		case <-time.After(100 * time.Millisecond):
		}
	}
	var line string
	select {
	case line = <-shown:
	case <-ctx.Done():
		t.Fatalf("Qwen's output never showed the inbox\nstdout:\n%s\nstderr:\n%s", tail(outText(), 4000), tail(stderr.String(), 4000))
	}
	if !strings.Contains(line, url) || strings.Contains(line, "token") {
		t.Errorf("Qwen's progress %s: want the URL %s, without the token", line, url)
	}
	t.Logf("Qwen's stream-json while the question waits: %s", tail(line, 600))

	token, err := inbox.ReadUserToken(dataDir)
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
			ID string `json:"id"`
		} `json:"requests"`
	}
	res := do("GET", "/api/requests", "")
	json.NewDecoder(res.Body).Decode(&list)
	res.Body.Close()
	if len(list.Requests) != 1 {
		t.Fatalf("the inbox holds %+v; want the bash question", list.Requests)
	}
	res = do("POST", "/api/requests/"+list.Requests[0].ID+"/reply", `{"reply": "once"}`)
	res.Body.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("qwen: %v\nstdout:\n%s\nstderr:\n%s", err, tail(outText(), 4000), tail(stderr.String(), 4000))
	}

	model.mu.Lock()
	defer model.mu.Unlock()
	if r := model.results["call_0"]; !strings.Contains(r, "from-qwen") {
		t.Errorf("the model got %q for mcp__toolhost__bash; want the command's output", r)
	}
	// Qwen offers MCP tools through its tool_search, not in the list the
	// model gets first, so the names are checked in toolhost's refusal.
	// Qwen hands the model the result as JSON, the call's quotes escaped.
	want := "Read it with the mcp__toolhost__read tool first: mcp__toolhost__read {"
	if r := model.results["call_1"]; !strings.Contains(r, want) {
		t.Errorf("the model got %q for writing an unread file; want a refusal naming %s", r, want)
	}
}
