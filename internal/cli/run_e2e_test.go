package cli_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/agent"
	"github.com/toolhost/toolhost/internal/testkit/agenttest"
	"github.com/toolhost/toolhost/internal/testkit/e2e"
)

func TestMain(m *testing.M) {
	code := pg.Main(m) // runs the tests; stops migrate_test.go's PostgreSQL
	e2e.Cleanup()
	os.Exit(code)
}

// runWorld is a fresh user and project for the built binary, pointed at a
// scripted model server through OPENAI_BASE_URL.
type runWorld struct {
	*e2e.Project
	srv *agenttest.Server
}

func newRunWorld(t *testing.T, script agenttest.Script) *runWorld {
	t.Helper()
	w := &runWorld{Project: e2e.NewProject(t), srv: agenttest.New(t, script)}
	w.Env = []string{"OPENAI_BASE_URL=" + w.srv.URL, "OPENAI_API_KEY=sk-test"}
	w.Write("notes.txt", "alpha line\n")
	w.Write("todo.txt", "beta line\n")
	w.Write(".env", "SECRET=1\n")
	return w
}

// run executes `toolhost run` and returns stdout, stderr and the exit code.
func (w *runWorld) run(args ...string) (string, string, int) {
	w.T.Helper()
	return w.Run("", append([]string{"run", "--model", "fake-model"}, args...)...)
}

// events decodes --json output, failing on any line that is not an event.
func events(t *testing.T, stdout string) []agent.Event {
	t.Helper()
	var out []agent.Event
	sc := bufio.NewScanner(strings.NewReader(stdout))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e agent.Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil || e.Type == "" {
			t.Fatalf("stdout line is not an event: %q (%v)", sc.Text(), err)
		}
		out = append(out, e)
	}
	return out
}

func ofType(evs []agent.Event, typ string) []agent.Event {
	var out []agent.Event
	for _, e := range evs {
		if e.Type == typ {
			out = append(out, e)
		}
	}
	return out
}

// calls answers the first request with tool calls and every later one
// with text.
func calls(cs ...agenttest.ToolCall) agenttest.Script {
	return func(n int, req agenttest.Request) agenttest.Turn {
		if n == 0 {
			return agenttest.Turn{Text: "Looking.", ToolCalls: cs}
		}
		return agenttest.Turn{Text: "Done."}
	}
}

func TestRunCommandEndToEnd(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}

	t.Run("parallel calls stream their events and results reach the model with their ids", func(t *testing.T) {
		t.Parallel()
		w := newRunWorld(t, calls(
			agenttest.ToolCall{ID: "call_1", Name: "read", Arguments: `{"filePath":"notes.txt"}`},
			agenttest.ToolCall{ID: "call_2", Name: "read", Arguments: `{"filePath":"todo.txt"}`},
		))
		stdout, stderr, code := w.run("--json", "read both files")
		if code != 0 {
			t.Fatalf("exit %d\n%s", code, stderr)
		}
		evs := events(t, stdout)
		if ofType(evs, "text")[0].Text == "" || len(ofType(evs, "tool-call")) != 2 {
			t.Errorf("events: %s", stdout)
		}
		for _, e := range ofType(evs, "tool-call") {
			if e.State != "running" {
				t.Errorf("tool-call state %q", e.State)
			}
		}
		results := ofType(evs, "tool-result")
		if len(results) != 2 {
			t.Fatalf("%d tool results:\n%s", len(results), stdout)
		}
		for _, r := range results {
			if r.Title == "" || r.Metadata == nil || r.Time == nil || r.Time.End < r.Time.Start || !strings.Contains(r.Output, "line") {
				t.Errorf("tool-result %+v lacks title, output, metadata or timing", r)
			}
		}
		if s := ofType(evs, "step-finish"); len(s) != 2 || s[0].Usage == nil || s[0].Usage.Total == 0 {
			t.Errorf("step-finish events %+v", s)
		}
		fin := ofType(evs, "finish")
		if len(fin) != 1 || fin[0].Reason != "stop" || fin[0].SessionID == "" {
			t.Errorf("finish %+v", fin)
		}
		got := w.srv.Requests()[1].ToolResults()
		if !strings.Contains(got["call_1"], "alpha line") || !strings.Contains(got["call_2"], "beta line") {
			t.Errorf("tool results sent to the model: %v", got)
		}
	})

	t.Run("an unknown tool, a wrong-case name and broken arguments are repaired or explained", func(t *testing.T) {
		t.Parallel()
		w := newRunWorld(t, calls(
			agenttest.ToolCall{ID: "c_case", Name: "Read", Arguments: `{"filePath":"notes.txt"}`},
			agenttest.ToolCall{ID: "c_unknown", Name: "frobnicate", Arguments: `{}`},
			agenttest.ToolCall{ID: "c_broken", Name: "read", Arguments: `{"filePath": "notes.txt"`},
		))
		stdout, stderr, code := w.run("--json", "go")
		if code != 0 {
			t.Fatalf("exit %d\n%s", code, stderr)
		}
		got := w.srv.Requests()[1].ToolResults()
		if !strings.Contains(got["c_case"], "alpha line") {
			t.Errorf("wrong-case call result %q", got["c_case"])
		}
		if !strings.Contains(got["c_unknown"], "unavailable tool 'frobnicate'") || !strings.Contains(got["c_unknown"], "read") {
			t.Errorf("unknown tool result %q", got["c_unknown"])
		}
		if !strings.Contains(got["c_broken"], "not valid JSON") {
			t.Errorf("broken arguments result %q", got["c_broken"])
		}
		for _, e := range ofType(events(t, stdout), "tool-call") {
			if e.CallID == "c_case" && (e.Tool != "read" || e.RepairedFrom != "Read") {
				t.Errorf("repaired call event %+v", e)
			}
		}
	})

	t.Run("a tool that asks permission reports the question and runs when allowed", func(t *testing.T) {
		t.Parallel()
		w := newRunWorld(t, calls(agenttest.ToolCall{ID: "c_env", Name: "read", Arguments: `{"filePath":".env"}`}))
		stdout, stderr, code := w.run("--json", "--yes", "read the env file")
		if code != 0 {
			t.Fatalf("exit %d\n%s", code, stderr)
		}
		evs := events(t, stdout)
		asked := ofType(evs, "permission-asked")
		if len(asked) != 1 || asked[0].Permission.Permission != "read" || asked[0].CallID != "c_env" {
			t.Errorf("permission-asked %+v", asked)
		}
		if r := ofType(evs, "tool-result"); len(r) != 1 || !strings.Contains(r[0].Output, "SECRET=1") {
			t.Errorf("tool-result %+v", r)
		}
	})

	t.Run("without anyone to ask, the request is refused and the model told", func(t *testing.T) {
		t.Parallel()
		w := newRunWorld(t, calls(agenttest.ToolCall{ID: "c_env", Name: "read", Arguments: `{"filePath":".env"}`}))
		stdout, stderr, code := w.run("--json", "read the env file")
		if code != 0 {
			t.Fatalf("exit %d\n%s", code, stderr)
		}
		errs := ofType(events(t, stdout), "tool-error")
		if len(errs) != 1 || errs[0].ErrorKind != "denied" {
			t.Errorf("tool-error %+v", errs)
		}
		if got := w.srv.Requests()[1].ToolResults()["c_env"]; !strings.Contains(got, "--yes") {
			t.Errorf("the model was told %q", got)
		}
	})

	t.Run("a model looping on one call is asked about doom_loop and stops at --max-steps", func(t *testing.T) {
		t.Parallel()
		w := newRunWorld(t, func(n int, req agenttest.Request) agenttest.Turn {
			if len(req.Tools) == 0 {
				return agenttest.Turn{Text: "I was looping."}
			}
			return agenttest.Turn{ToolCalls: []agenttest.ToolCall{{ID: fmt.Sprintf("loop_%d", n), Name: "glob", Arguments: `{"pattern":"*.txt"}`}}}
		})
		stdout, stderr, code := w.run("--json", "--yes", "--max-steps", "4", "loop")
		if code != 0 {
			t.Fatalf("exit %d\n%s", code, stderr)
		}
		evs := events(t, stdout)
		var doom int
		for _, e := range ofType(evs, "permission-asked") {
			if e.Permission.Permission == "doom_loop" {
				doom++
			}
		}
		if doom != 1 || len(ofType(evs, "tool-result")) != 3 {
			t.Errorf("%d doom_loop questions and %d results, want 1 and 3:\n%s", doom, len(ofType(evs, "tool-result")), stdout)
		}
		if fin := ofType(evs, "finish"); len(fin) != 1 || fin[0].Reason != "max-steps" || fin[0].Steps != 4 {
			t.Errorf("finish %+v", fin)
		}
	})

	t.Run("--session continues the conversation and text mode streams the answer", func(t *testing.T) {
		t.Parallel()
		w := newRunWorld(t, func(n int, req agenttest.Request) agenttest.Turn {
			if n == 0 {
				return agenttest.Turn{ToolCalls: []agenttest.ToolCall{{ID: "c1", Name: "read", Arguments: `{"filePath":"notes.txt"}`}}}
			}
			return agenttest.Turn{Text: fmt.Sprintf("Answer %d, with %d messages.", n, len(req.Messages))}
		})
		stdout, stderr, code := w.run("first question")
		if code != 0 {
			t.Fatalf("exit %d\n%s", code, stderr)
		}
		if stdout != "Answer 1, with 4 messages.\n" {
			t.Errorf("stdout %q", stdout)
		}
		if !strings.Contains(stderr, "→ read") || !strings.Contains(stderr, "✓ read") {
			t.Errorf("stderr lacks the tool call:\n%s", stderr)
		}
		i := strings.Index(stderr, "--session ")
		if i < 0 {
			t.Fatalf("no session id on stderr:\n%s", stderr)
		}
		sid := strings.Fields(stderr[i+len("--session "):])[0]
		stdout, stderr, code = w.run("--session", sid, "second question")
		if code != 0 || stdout != "Answer 2, with 6 messages.\n" {
			t.Errorf("continued run: exit %d stdout %q\n%s", code, stdout, stderr)
		}
	})

	t.Run("an endpoint that refuses the key fails with exit 1 and a remedy", func(t *testing.T) {
		t.Parallel()
		w := newRunWorld(t, func(int, agenttest.Request) agenttest.Turn {
			return agenttest.Turn{Status: 401, ErrorMessage: "Incorrect API key provided"}
		})
		_, stderr, code := w.run("hello")
		if code != 1 || !strings.Contains(stderr, "check the API key") {
			t.Errorf("exit %d\n%s", code, stderr)
		}
	})
}
