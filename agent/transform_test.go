package agent

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/testkit/agenttest"
	"github.com/toolhost/toolhost/runtime"
)

func TestNormalizeMessagesFollowsEachFamilysRules(t *testing.T) {
	t.Parallel()
	user := func(text string) Message { return Message{Role: RoleUser, Text: text} }
	asst := func(text string, ids ...string) Message {
		m := Message{Role: RoleAssistant, Text: text}
		for _, id := range ids {
			m.ToolCalls = append(m.ToolCalls, ToolCall{ID: id, Name: "read", Arguments: "{}"})
		}
		return m
	}
	tool := func(id string) Message { return Message{Role: RoleTool, CallID: id, Text: "ok"} }
	tests := []struct {
		name   string
		family Family
		in     []Message
		want   []Message
	}{
		{"empty assistant and user messages are dropped for every family", FamilyOther,
			[]Message{user("hi"), asst(""), user("  "), asst("hello")},
			[]Message{user("hi"), asst("hello")}},
		{"other families keep ids as they are", FamilyOther,
			[]Message{asst("", "call.1:x"), tool("call.1:x")},
			[]Message{asst("", "call.1:x"), tool("call.1:x")}},
		{"anthropic ids keep only letters, digits, _ and -", FamilyAnthropic,
			[]Message{asst("", "call.1:x", "toolu_01-ok"), tool("call.1:x"), tool("toolu_01-ok")},
			[]Message{asst("", "call_1_x", "toolu_01-ok"), tool("call_1_x"), tool("toolu_01-ok")}},
		{"mistral ids are nine letters and digits", FamilyMistral,
			[]Message{asst("", "call_abc-DEF-123456"), tool("call_abc-DEF-123456")},
			[]Message{asst("", "callabcDE"), tool("callabcDE")}},
		{"short mistral ids are padded with zeros", FamilyMistral,
			[]Message{asst("", "a1"), tool("a1")},
			[]Message{asst("", "a10000000"), tool("a10000000")}},
		{"mistral gets an assistant turn between a tool message and a user message", FamilyMistral,
			[]Message{asst("", "abcdefghi"), tool("abcdefghi"), user("next")},
			[]Message{asst("", "abcdefghi"), tool("abcdefghi"), {Role: RoleAssistant, Text: "Done."}, user("next")}},
		{"other families need no such turn", FamilyAnthropic,
			[]Message{asst("", "abc"), tool("abc"), user("next")},
			[]Message{asst("", "abc"), tool("abc"), user("next")}},
	}
	for _, tt := range tests {
		if got := normalizeMessages(tt.in, tt.family); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", tt.name, got, tt.want)
		}
	}
}

// Ids that the family's rule would map to one id stay distinct, and the
// transcript itself is never changed.
func TestNormalizedIDsStayDistinctAndTheTranscriptUntouched(t *testing.T) {
	t.Parallel()
	for _, family := range []Family{FamilyAnthropic, FamilyMistral} {
		in := []Message{
			{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "call:1"}, {ID: "call.1"}, {ID: "call_1"}, {ID: "::"}, {ID: ".."}}},
			{Role: RoleTool, CallID: "call:1"}, {Role: RoleTool, CallID: "call.1"}, {Role: RoleTool, CallID: "call_1"},
			{Role: RoleTool, CallID: "::"}, {Role: RoleTool, CallID: ".."},
		}
		got := normalizeMessages(in, family)
		seen := map[string]bool{}
		for i, c := range got[0].ToolCalls {
			if seen[c.ID] {
				t.Errorf("%s: two calls share the id %q", family, c.ID)
			}
			seen[c.ID] = true
			if got[1+i].CallID != c.ID {
				t.Errorf("%s: call %q answered as %q", family, c.ID, got[1+i].CallID)
			}
			if family == FamilyMistral && (len(c.ID) != 9 || strings.IndexFunc(c.ID, func(r rune) bool { return !isAlnum(r) }) >= 0) {
				t.Errorf("mistral id %q is not 9 letters and digits", c.ID)
			}
		}
		if in[0].ToolCalls[0].ID != "call:1" || in[1].CallID != "call:1" {
			t.Errorf("%s: the transcript was changed: %+v", family, in[:2])
		}
	}
}

func TestAttachmentsAModelCannotTakeBecomeANote(t *testing.T) {
	t.Parallel()
	in := []Message{{Role: RoleUser, Text: "look", Attachments: []runtime.Attachment{
		{MIME: "image/png", URL: "data:image/png;base64,AA"},
		{MIME: "application/pdf", URL: "data:application/pdf;base64,AA", Filename: "spec.pdf"},
	}}, {Role: RoleUser, Attachments: []runtime.Attachment{{MIME: "application/zip", URL: "data:,"}}}}
	got := normalizeMessages(in, FamilyOther)
	if len(got) != 2 || len(got[0].Attachments) != 1 || got[0].Attachments[0].MIME != "image/png" {
		t.Fatalf("attachments kept: %+v", got)
	}
	if !strings.Contains(got[0].Text, "look") || !strings.Contains(got[0].Text, "spec.pdf (application/pdf) is not shown") {
		t.Errorf("text %q lacks the note", got[0].Text)
	}
	if len(got[1].Attachments) != 0 || !strings.Contains(got[1].Text, "an attachment (application/zip)") {
		t.Errorf("a message with only an unusable attachment: %+v", got[1])
	}
	if len(in[0].Attachments) != 2 {
		t.Error("the transcript's attachments were changed")
	}
}

func TestModelFamilyKnowsMistral(t *testing.T) {
	t.Parallel()
	for _, m := range []string{"mistral/mistral-large-latest", "devstral-small", "openrouter/mistralai/codestral-2501"} {
		if f := ModelFamily(m); f != FamilyMistral {
			t.Errorf("%s: family %q", m, f)
		}
	}
}

// On the wire: an Anthropic model behind an OpenAI-compatible endpoint
// gets sanitised call ids in both the assistant's call and the tool's
// answer, and a Mistral model at its step limit gets "Done." between the
// tool message and the step limit's prompt.
func TestProviderTransformsOnTheWire(t *testing.T) {
	t.Parallel()
	t.Run("anthropic ids", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, answerAfterTools([]agenttest.ToolCall{{ID: "call.1:x", Name: "echo", Arguments: `{"text":"hi"}`}}, "done"), harnessOptions{})
		if _, err := h.run(Request{Prompt: "echo", Model: "test/claude-sonnet-4"}); err != nil {
			t.Fatal(err)
		}
		reqs := h.srv.Requests()
		if len(reqs) != 2 {
			t.Fatalf("%d requests, want 2", len(reqs))
		}
		var callIDs, answered []string
		for _, m := range reqs[1].Messages {
			for _, c := range m.ToolCalls {
				callIDs = append(callIDs, c.ID)
			}
			if m.Role == "tool" {
				answered = append(answered, m.ToolCallID)
			}
		}
		if !slices.Equal(callIDs, []string{"call_1_x"}) || !slices.Equal(answered, []string{"call_1_x"}) {
			t.Errorf("calls %q answered as %q, want call_1_x for both", callIDs, answered)
		}
	})
	t.Run("mistral at the step limit", func(t *testing.T) {
		t.Parallel()
		script := func(n int, req agenttest.Request) agenttest.Turn {
			if n == 0 {
				return agenttest.Turn{ToolCalls: []agenttest.ToolCall{{ID: "call_abcdefghijk", Name: "echo", Arguments: `{"text":"hi"}`}}}
			}
			return agenttest.Turn{Text: "summary"}
		}
		h := newHarness(t, script, harnessOptions{})
		if _, err := h.run(Request{Prompt: "echo", Model: "test/mistral-large", MaxSteps: 2}); err != nil {
			t.Fatal(err)
		}
		reqs := h.srv.Requests()
		if len(reqs) != 2 {
			t.Fatalf("%d requests, want 2", len(reqs))
		}
		var roles []string
		for _, m := range reqs[1].Messages {
			roles = append(roles, m.Role)
			for _, c := range m.ToolCalls {
				if len(c.ID) != 9 {
					t.Errorf("mistral call id %q is not 9 characters", c.ID)
				}
			}
		}
		if want := []string{"system", "user", "assistant", "tool", "assistant", "user"}; !slices.Equal(roles, want) {
			t.Errorf("roles %v, want %v", roles, want)
		}
	})
}
