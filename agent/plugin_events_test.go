package agent

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/toolhost/toolhost/internal/testkit/agenttest"
	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/config"
	"github.com/toolhost/toolhost/runtime/permission"
)

// eventRecorder is a plugin stand-in: a hook that takes events and keeps
// them as JSON, the way a plugin's event export would read them.
type eventRecorder struct {
	runtime.HookFuncs
	mu     sync.Mutex
	events []recorded
}

type recorded struct {
	Type  string
	Props map[string]any
}

func (r *eventRecorder) Event(_ context.Context, typ string, props any) {
	b, err := json.Marshal(props)
	if err != nil {
		panic(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		panic(err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, recorded{typ, m})
}

// summary is each event's type, with a tool part's status and a text
// part's text.
func (r *eventRecorder) summary() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, e := range r.events {
		s := e.Type
		if part, ok := e.Props["part"].(map[string]any); ok {
			switch part["type"] {
			case "tool":
				s += " tool " + part["tool"].(string) + " " + part["state"].(map[string]any)["status"].(string)
			case "text":
				s += " text " + part["text"].(string)
			}
		}
		if e.Type == runtime.EventPermissionReplied {
			s += " " + e.Props["reply"].(string)
		}
		out = append(out, s)
	}
	return out
}

func TestPluginEventHooksReceiveTheLoopsEventsInOrder(t *testing.T) {
	t.Parallel()
	guarded := []agenttest.ToolCall{{ID: "g1", Name: "guarded", Arguments: `{"target":"prod"}`}}
	h := newHarness(t, answerAfterTools(guarded, "done"), harnessOptions{asker: permission.AskerFunc(once), cfg: func(c *config.Config) {
		c.Permission.Rules = permission.Ruleset{{Permission: "guarded", Pattern: "*", Action: permission.Ask}}
	}})
	rec := &eventRecorder{}
	h.reg.AddHook(rec)
	res, err := h.run(Request{Prompt: "touch prod"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"session.created",
		"message.part.updated text touch prod",
		"message.part.updated text Let me look.",
		"message.part.updated tool guarded running",
		"permission.asked",
		"permission.replied once",
		"message.part.updated tool guarded completed",
		"message.part.updated text done",
		"session.idle",
	}
	if got := rec.summary(); !slices.Equal(got, want) {
		t.Fatalf("events:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	created := rec.events[0].Props["info"].(map[string]any)
	if created["id"] != res.SessionID {
		t.Errorf("session.created for %v, want %s", created["id"], res.SessionID)
	}
	asked := rec.events[4].Props
	if asked["permission"] != "guarded" || asked["sessionID"] != res.SessionID || asked["tool"].(map[string]any)["callID"] != "g1" {
		t.Errorf("permission.asked %v, want guarded for call g1 of the session", asked)
	}
	if rec.events[5].Props["requestID"] != asked["id"] {
		t.Errorf("permission.replied answers %v, want the asked request %v", rec.events[5].Props["requestID"], asked["id"])
	}
	done := rec.events[6].Props["part"].(map[string]any)["state"].(map[string]any)
	if done["output"] != "touched prod" {
		t.Errorf("completed tool part output %v", done["output"])
	}
}

func TestPluginEventHooksHearOfAFailedRunAndNotOfRuleDecisions(t *testing.T) {
	t.Parallel()
	// A rule allows the guarded call: no person is asked, so no permission
	// event. Then the model endpoint fails: session.error, not idle.
	guarded := []agenttest.ToolCall{{ID: "g1", Name: "guarded", Arguments: `{"target":"prod"}`}}
	h := newHarness(t, func(n int, req agenttest.Request) agenttest.Turn {
		if n == 0 {
			return agenttest.Turn{ToolCalls: guarded}
		}
		return agenttest.Turn{Status: 400, ErrorMessage: "model is gone"}
	}, harnessOptions{asker: permission.AskerFunc(once), cfg: func(c *config.Config) {
		c.Permission.Rules = permission.Ruleset{{Permission: "guarded", Pattern: "*", Action: permission.Allow}}
	}})
	rec := &eventRecorder{}
	h.reg.AddHook(rec)
	_, err := h.run(Request{Prompt: "touch prod"})
	if err == nil {
		t.Fatal("the run succeeded against a failing endpoint")
	}
	got := rec.summary()
	want := []string{
		"session.created",
		"message.part.updated text touch prod",
		"message.part.updated tool guarded running",
		"message.part.updated tool guarded completed",
		"session.error",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("events:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	msg, _ := rec.events[len(rec.events)-1].Props["error"].(map[string]any)["data"].(map[string]any)["message"].(string)
	if !strings.Contains(msg, "model is gone") {
		t.Errorf("session.error message %q, want the endpoint's error", msg)
	}
}
