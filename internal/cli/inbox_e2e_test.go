package cli_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/internal/serve/inbox"
	"github.com/toolhost/toolhost/internal/testkit/agenttest"
)

// TestRunParksAsksInTheInbox: `toolhost run --json --ask-fallback inbox`
// has no terminal to ask at, so the model's bash call waits in the inbox
// whose URL it printed; a reject with a message there reaches the model,
// and the run goes on.
func TestRunParksAsksInTheInbox(t *testing.T) {
	t.Parallel()
	w := newRunWorld(t, calls(agenttest.ToolCall{ID: "call_1", Name: "bash", Arguments: `{"command":"rm -rf build","description":"clean"}`}))
	w.Write("toolhost.json", `{"permission": {"bash": "ask"}}`)
	cmd := w.Command("run", "--model", "fake-model", "--json", "--ask-fallback", "inbox", "clean up")
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	urls := make(chan string, 1)
	go func() {
		re := regexp.MustCompile(`permission inbox on (http://127\.0\.0\.1:\d+)/ \(run .toolhost inbox.`)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				urls <- m[1]
			}
		}
		io.Copy(io.Discard, stderr)
	}()
	var url, token string
	do := func(method, path, body string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(method, url+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+token)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	select {
	case u := <-urls:
		url = u
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatal("toolhost run printed no inbox URL")
	}
	// Not printed: the user's token, kept in the data directory.
	tok, err := inbox.ReadUserToken(filepath.Join(w.Home, ".local/share", "toolhost"))
	if err != nil {
		t.Fatal(err)
	}
	token = tok
	var id string
	for deadline := time.Now().Add(60 * time.Second); id == ""; time.Sleep(20 * time.Millisecond) {
		res := do("GET", "/api/requests", "")
		var body struct {
			Requests []struct {
				ID      string
				Preview struct{ Text string }
			}
		}
		json.NewDecoder(res.Body).Decode(&body)
		res.Body.Close()
		if len(body.Requests) == 1 {
			id = body.Requests[0].ID
			if body.Requests[0].Preview.Text != "rm -rf build" {
				t.Errorf("preview %q, want the command", body.Requests[0].Preview.Text)
			}
		} else if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("the bash call never reached the inbox")
		}
	}
	res := do("POST", "/api/requests/"+id+"/reply", `{"reply":"reject","message":"keep the build folder"}`)
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("reply: %s", res.Status)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("toolhost run: %v\n%s", err, stdout.String())
	}
	errs := ofType(events(t, stdout.String()), "tool-error")
	if len(errs) != 1 || !strings.Contains(errs[0].Error, "keep the build folder") {
		t.Errorf("tool errors %+v, want the rejection with its message", errs)
	}
}
