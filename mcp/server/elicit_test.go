package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"maps"
	"os"
	"strings"
	"sync"
	"testing"

	sdk "github.com/toolhost/toolhost/internal/third_party/gosdk/mcp"
)

// The messages the model receives for the test tool "guarded" called with
// path "x" (which asks permission "guarded", pattern "x", always "x").
const (
	msgRejected  = `the user rejected permission to use guarded; stop and wait for their instructions`
	msgCorrected = `the user rejected permission to use guarded with this feedback: use the other file`
	// msgUnansweredHead + the reason in parentheses + msgUnansweredTail.
	msgUnansweredHead = `permission guarded for "x" needs the user's approval, but the question could not be shown to them or was not answered (`
	msgUnansweredTail = `). Nobody rejected it; do not retry it now. Tell the user what you wanted to do and that, to allow it, they can add "permission": {"guarded": {"x": "allow"}} to toolhost.json, or let their MCP client answer permission questions (for Claude Code: an Elicitation hook in settings.json; see docs/mcp.md in toolhost)`
	whyCancel         = `the MCP client dismissed it with "cancel", as a client with no one to show it to does`
	whyNoAnswer       = `the MCP client came back without an answer to the permission question`
)

func unansweredMsg(why string) string { return msgUnansweredHead + why + msgUnansweredTail }

// TestAnswersAreToldApart: decline and an explicit reject are the person's
// no; cancel and no answer at all are a question nobody answered, and the
// model is told so, with the rule that would let the call through. Each
// case runs through the go-sdk client on both protocol versions: on the
// older one the answer comes back to an elicitation/create request, on
// 2026-07-28 in the retry of an input_required result.
func TestAnswersAreToldApart(t *testing.T) {
	t.Parallel()
	// noAnswer is the handler's error standing for a client that could not
	// answer (on the older protocol the server sees the request fail).
	noAnswer := errors.New("no one here to answer")
	tests := []struct {
		name    string
		action  string
		content map[string]any
		err     error // the handler fails instead of answering
		// want is the exact text the model receives, per protocol.
		want map[string]string
	}{
		{
			name: "decline is the person's no", action: "decline",
			want: map[string]string{protoRoundTrip: msgRejected, protoLegacy: msgRejected},
		},
		{
			name: "an explicit reject is the person's no", action: "accept", content: map[string]any{"decision": "reject"},
			want: map[string]string{protoRoundTrip: msgRejected, protoLegacy: msgRejected},
		},
		{
			name: "a reject with a message gives the model the feedback", action: "accept", content: map[string]any{"decision": "reject", "message": "  use the other file\n"},
			want: map[string]string{protoRoundTrip: msgCorrected, protoLegacy: msgCorrected},
		},
		{
			name: "cancel is unanswered, not a rejection", action: "cancel",
			want: map[string]string{protoRoundTrip: unansweredMsg(whyCancel), protoLegacy: unansweredMsg(whyCancel)},
		},
		{
			// On 2026-07-28 the go-sdk client does not retry when its
			// handler fails, so "no answer" there is tested by
			// TestARetryWithoutAnAnswerIsUnanswered.
			name: "an elicitation request that fails is unanswered", err: noAnswer,
			want: map[string]string{protoLegacy: unansweredMsg(`the MCP client's answer failed: calling "elicitation/create": no one here to answer`)},
		},
		{
			name: "a failed request's text stays on one line and reads as it is", err: errors.New("bad\n\u202eNobody\tanswered"),
			want: map[string]string{protoLegacy: unansweredMsg(`the MCP client's answer failed: calling "elicitation/create": bad  Nobody answered`)},
		},
	}
	for _, proto := range protocols {
		for _, tt := range tests {
			want, ok := tt.want[proto]
			if !ok {
				continue
			}
			t.Run(proto+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				f := newFixture(t, "")
				handler := func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
					if tt.err != nil {
						return nil, tt.err
					}
					// A copy: the SDK fills defaults into the answer it is
					// given, and the table's map is shared by both protocol
					// versions running in parallel.
					return &sdk.ElicitResult{Action: tt.action, Content: maps.Clone(tt.content)}, nil
				}
				cs := f.connect(t, proto, &sdk.ClientOptions{ElicitationHandler: handler})
				res, out := call(t, cs, "guarded", map[string]any{"path": "x"})
				if !res.IsError || out != want {
					t.Errorf("isError %v, the model receives\n%s\nwant\n%s", res.IsError, out, want)
				}
			})
		}
	}
}

// roundTrip is a client on 2026-07-28 that answers input requests itself
// (the go-sdk's automatic retry is off), so a test can send any answer —
// or none — and see the result the server returns.
type roundTrip struct {
	cs  *sdk.ClientSession
	log *syncBuffer // the wire as the client reads it, one message a line
}

func newRoundTrip(t *testing.T, f *fixture) *roundTrip {
	t.Helper()
	ct, st := sdk.NewInMemoryTransports()
	log := &syncBuffer{}
	ctx := context.Background()
	if _, err := f.srv.Connect(ctx, st); err != nil {
		t.Fatal(err)
	}
	// The handler only declares the capability; this client answers by hand.
	opts := &sdk.ClientOptions{
		ElicitationHandler: func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			t.Error("the go-sdk client answered by itself")
			return nil, errors.New("unexpected")
		},
		MultiRoundTrip: &sdk.MultiRoundTripOptions{Disabled: true},
	}
	// The client logs each message as it reads it, before handing it on,
	// so a call's response is in the log when the call returns.
	logged := &sdk.LoggingTransport{Transport: ct, Writer: log}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "v0"}, opts).Connect(ctx, logged, &sdk.ClientSessionOptions{ProtocolVersion: protoRoundTrip})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return &roundTrip{cs: cs, log: log}
}

// ask calls guarded with path x and returns the input_required result.
func (r *roundTrip) ask(t *testing.T) *sdk.CallToolResult {
	t.Helper()
	res, err := r.cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "guarded", Arguments: map[string]any{"path": "x"}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.NeedsInput() || res.RequestState == "" || res.InputRequests["permission"] == nil {
		t.Fatalf("want an input_required result with the permission question, got %+v (%s)", res, text(res))
	}
	return res
}

// answer retries the call with responses (nil: none at all).
func (r *roundTrip) answer(t *testing.T, asked *sdk.CallToolResult, responses sdk.InputResponseMap) *sdk.CallToolResult {
	t.Helper()
	res, err := r.cs.CallTool(context.Background(), &sdk.CallToolParams{
		Name: "guarded", Arguments: map[string]any{"path": "x"},
		RequestState: asked.RequestState, InputResponses: responses,
	})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestARetryWithoutAnAnswerIsUnanswered(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		responses sdk.InputResponseMap
	}{
		{"no inputResponses at all", nil},
		{"inputResponses without the permission question", sdk.InputResponseMap{"other": &sdk.ElicitResult{Action: "accept", Content: map[string]any{"decision": "once"}}}},
		{"an answer of another kind under the question's id", sdk.InputResponseMap{"permission": &sdk.ListRootsResult{Roots: []*sdk.Root{}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := newRoundTrip(t, newFixture(t, ""))
			res := r.answer(t, r.ask(t), tt.responses)
			if want := unansweredMsg(whyNoAnswer); !res.IsError || text(res) != want {
				t.Errorf("isError %v, the model receives\n%s\nwant\n%s", res.IsError, text(res), want)
			}
		})
	}
}

// TestTheInputRequiredResultCarriesAnEmptyContentArray reads the result off
// the wire: "content" must be [], not null (clients that check the result
// against the schema refuse null), and nothing else may be in it, since an
// input_required result carries no content.
func TestTheInputRequiredResultCarriesAnEmptyContentArray(t *testing.T) {
	t.Parallel()
	r := newRoundTrip(t, newFixture(t, ""))
	r.ask(t)
	var found bool
	sc := bufio.NewScanner(strings.NewReader(r.log.String()))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "read: ")
		if !ok {
			continue
		}
		var msg struct {
			Result map[string]json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal([]byte(line), &msg); err != nil {
			t.Fatalf("the client read invalid JSON %q: %v", line, err)
		}
		if msg.Result["inputRequests"] == nil {
			continue
		}
		found = true
		if got := string(msg.Result["resultType"]); got != `"input_required"` {
			t.Errorf("resultType = %s, want \"input_required\"", got)
		}
		content, present := msg.Result["content"]
		if !present || string(content) != "[]" {
			t.Errorf(`content = %s (present %v), want []; result %s`, content, present, line)
		}
	}
	if !found {
		t.Fatalf("no input_required result on the wire:\n%s", r.log.String())
	}
}

// answerCase is one entry of testdata/elicit_answers.json: an answer a
// client might send to the permission question, hostile or malformed ones
// included, and how it must be read.
type answerCase struct {
	Name string `json:"name"`
	// Answer is the ElicitResult sent in the retry, as JSON.
	Answer json.RawMessage `json:"answer"`
	// Want is "allowed", "rejected", "corrected" or "unanswered".
	Want string `json:"want"`
	// Text, when set, is the exact text the model receives.
	Text string `json:"text"`
}

// TestEveryAnswerInTheCorpusIsReadAsItSays sends each answer of the corpus
// in a 2026-07-28 retry: only an accepted once or always allows, anything
// else refuses — as a rejection only when the person said no.
func TestEveryAnswerInTheCorpusIsReadAsItSays(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("testdata/elicit_answers.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []answerCase
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatalf("elicit_answers.json: %v", err)
	}
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			t.Parallel()
			var ans sdk.ElicitResult
			if err := json.Unmarshal(tc.Answer, &ans); err != nil {
				t.Fatalf("answer: %v", err)
			}
			r := newRoundTrip(t, newFixture(t, ""))
			res := r.answer(t, r.ask(t), sdk.InputResponseMap{"permission": &ans})
			out := text(res)
			if got := kindOf(res); got != tc.Want {
				t.Errorf("read as %s, want %s; the model receives\n%s", got, tc.Want, out)
			}
			if tc.Text != "" && out != tc.Text {
				t.Errorf("the model receives\n%s\nwant\n%s", out, tc.Text)
			}
		})
	}
}

// kindOf classifies a guarded call's result by what the model is told.
func kindOf(res *sdk.CallToolResult) string {
	out := text(res)
	switch {
	case !res.IsError && out == "guarded x":
		return "allowed"
	case res.IsError && out == msgRejected:
		return "rejected"
	case res.IsError && strings.HasPrefix(out, "the user rejected permission to use guarded with this feedback: "):
		return "corrected"
	case res.IsError && strings.HasPrefix(out, msgUnansweredHead) && strings.HasSuffix(out, msgUnansweredTail):
		return "unanswered"
	}
	return "unexpected"
}

// syncBuffer is a bytes.Buffer safe for the transport's writer and the test.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
