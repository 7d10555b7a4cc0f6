package server_test

import (
	"context"
	"strings"
	"testing"
	"time"

	sdk "github.com/toolhost/toolhost/internal/third_party/gosdk/mcp"

	"github.com/toolhost/toolhost/runtime/session"
)

// callIn calls guarded with path x in the toolhost session sid, as a
// client of the sessionless protocol names its session in _meta.
func callIn(t *testing.T, cs *sdk.ClientSession, sid, state string, answer sdk.InputResponseMap) *sdk.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{
		Meta: sdk.Meta{"toolhost/session": sid}, Name: "guarded", Arguments: map[string]any{"path": "x"},
		RequestState: state, InputResponses: answer,
	})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func decision(d string) sdk.InputResponseMap {
	return sdk.InputResponseMap{"permission": &sdk.ElicitResult{Action: "accept", Content: map[string]any{"decision": d}}}
}

func TestADrainingReplicaReleasesParkedCallsAndTheAnswerGivenElsewhereIsKept(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		answer    sdk.InputResponseMap
		want      string // in the answer's result
		askedOnce bool   // the call made again runs without asking
	}{
		{"once is granted to the call made again", decision("once"), "The answer (allow once) is recorded for this session: call guarded again", true},
		{"always is approved for the session", decision("always"), "The answer (allow always) is recorded", true},
		{"a rejection is the person's no, and nothing is recorded", sdk.InputResponseMap{"permission": &sdk.ElicitResult{Action: "decline"}}, msgRejected, false},
		{"no answer records nothing", nil, "came back without an answer", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			store := session.NewMemory()
			a, b := newReplica(t, store), newReplica(t, store)
			const sid = "ses_drain"
			asked := callIn(t, newRoundTrip(t, a).cs, sid, "", nil)
			if !asked.NeedsInput() {
				t.Fatalf("guarded = %s; want a question", text(asked))
			}
			a.srv.Drain(t.Context())

			onB := newRoundTrip(t, b).cs
			res := callIn(t, onB, sid, asked.RequestState, tt.answer)
			if !res.IsError || !strings.Contains(text(res), tt.want) {
				t.Fatalf("the answer through b to the call a released = %s; want an error containing %q", text(res), tt.want)
			}
			again := callIn(t, onB, sid, "", nil)
			if tt.askedOnce && (again.NeedsInput() || again.IsError || text(again) != "guarded x") {
				t.Fatalf("the call made again = %s (needs input %v); want it run without asking", text(again), again.NeedsInput())
			}
			if !tt.askedOnce && !again.NeedsInput() {
				t.Fatalf("the call made again = %s; want the person asked again", text(again))
			}
			if kvs, _ := store.List(t.Context(), "toolhost-mcp-parked", "released"); len(kvs) != 0 {
				t.Errorf("the released request is still stored after its answer: %v", kvs)
			}
		})
	}
}

func TestAGrantFromADrainIsUsedOnceAndOnlyInItsSession(t *testing.T) {
	t.Parallel()
	store := session.NewMemory()
	a, b := newReplica(t, store), newReplica(t, store)
	asked := callIn(t, newRoundTrip(t, a).cs, "ses_one", "", nil)
	a.srv.Drain(t.Context())
	onB := newRoundTrip(t, b).cs
	if res := callIn(t, onB, "ses_one", asked.RequestState, decision("once")); !strings.Contains(text(res), "recorded") {
		t.Fatalf("answer = %s", text(res))
	}
	if res := callIn(t, onB, "ses_other", "", nil); !res.NeedsInput() {
		t.Errorf("another session used the grant: %s", text(res))
	}
	if res := callIn(t, onB, "ses_one", "", nil); res.NeedsInput() || text(res) != "guarded x" {
		t.Errorf("the session's retry = %s; want it run", text(res))
	}
	if res := callIn(t, onB, "ses_one", "", nil); !res.NeedsInput() {
		t.Errorf("a once grant allowed a second call: %s", text(res))
	}
}

func TestAQuestionAskedWhileDrainingIsReleasedAsItIsSent(t *testing.T) {
	t.Parallel()
	store := session.NewMemory()
	a, b := newReplica(t, store), newReplica(t, store)
	a.srv.Drain(t.Context())
	asked := callIn(t, newRoundTrip(t, a).cs, "ses_late", "", nil)
	if !asked.NeedsInput() {
		t.Fatalf("a call asking while its replica drains = %s; want the question still shown", text(asked))
	}
	onB := newRoundTrip(t, b).cs
	if res := callIn(t, onB, "ses_late", asked.RequestState, decision("once")); !strings.Contains(text(res), "recorded") {
		t.Fatalf("answer = %s", text(res))
	}
	if res := callIn(t, onB, "ses_late", "", nil); text(res) != "guarded x" {
		t.Errorf("the call made again = %s", text(res))
	}
}

func TestAnAnswerRelayedToADrainingReplicaFindsTheReleasedCall(t *testing.T) {
	t.Parallel()
	store := session.NewMemory()
	a, b := newReplica(t, store), newReplica(t, store)
	asked := callIn(t, newRoundTrip(t, a).cs, "ses_relay", "", nil)
	// b relays the answer while a drains: whichever wins, it is kept.
	done := make(chan *sdk.CallToolResult, 1)
	onB := newRoundTrip(t, b).cs
	go func() {
		res, _ := onB.CallTool(context.Background(), &sdk.CallToolParams{
			Meta: sdk.Meta{"toolhost/session": "ses_relay"}, Name: "guarded", Arguments: map[string]any{"path": "x"},
			RequestState: asked.RequestState, InputResponses: decision("once"),
		})
		done <- res
	}()
	a.srv.Drain(t.Context())
	var res *sdk.CallToolResult
	select {
	case res = <-done:
	case <-time.After(time.Minute):
		t.Fatal("the answer never came back")
	}
	// Either a took the answer before it drained (the call ran) or the
	// drain released it (the answer is recorded): never lost.
	if t1 := text(res); t1 != "guarded x" && !strings.Contains(t1, "recorded") {
		t.Fatalf("the answer raced with the drain: %s", t1)
	}
}

func TestWithoutASharedStoreAReleasedCallIsExpired(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "")
	r := newRoundTrip(t, f)
	asked := r.ask(t)
	f.srv.Drain(t.Context())
	res := r.answer(t, asked, decision("once"))
	if !res.IsError || !strings.Contains(text(res), "no longer waiting") {
		t.Errorf("answer after a drain without a store = %s; want the call-expired error", text(res))
	}
}

func TestADrainEndsADirectElicitationWithARetryMessage(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "")
	asked := make(chan struct{})
	cs := f.connectAs(t, "test", protoLegacy, func(ctx context.Context, _ *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		close(asked)
		<-ctx.Done() // the person never answers
		return nil, ctx.Err()
	})
	done := make(chan string, 1)
	go func() {
		_, out := call(t, cs, "guarded", map[string]any{"path": "x"})
		done <- out
	}()
	select {
	case <-asked:
	case <-time.After(time.Minute):
		t.Fatal("never asked")
	}
	f.srv.Drain(t.Context())
	select {
	case out := <-done:
		if !strings.Contains(out, "shutting down (draining)") || !strings.Contains(out, "call the tool again") {
			t.Errorf("the call ended by the drain = %q; want the retry message", out)
		}
	case <-time.After(time.Minute):
		t.Fatal("the drain did not end the call waiting for an answer")
	}
	// A call asking after the drain began is ended at once, too.
	if _, out := call(t, cs, "guarded", map[string]any{"path": "x"}); !strings.Contains(out, "shutting down (draining)") {
		t.Errorf("a call asking during the drain = %q", out)
	}
}

func TestADrainPrunesReleasedRequestsNobodyAnswered(t *testing.T) {
	t.Parallel()
	store := session.NewMemory()
	ctx := t.Context()
	stale := `{"request": {"permission": "bash", "patterns": ["make"]}, "expires": "2020-01-01T00:00:00Z"}`
	if err := session.Put(ctx, store, "toolhost-mcp-parked", "released", "tcall_stale", []byte(stale)); err != nil {
		t.Fatal(err)
	}
	if err := session.Put(ctx, store, "toolhost-mcp-parked", "released", "tcall_garbled", []byte("{")); err != nil {
		t.Fatal(err)
	}
	a, b := newReplica(t, store), newReplica(t, store)
	asked := callIn(t, newRoundTrip(t, a).cs, "ses_prune", "", nil)
	a.srv.Drain(ctx)
	kvs, _ := store.List(ctx, "toolhost-mcp-parked", "released")
	if len(kvs) != 1 || kvs[0].Key != asked.RequestState {
		t.Fatalf("released requests after the drain = %v; want only the live one, %s", kvs, asked.RequestState)
	}
	// A forged answer to the pruned state finds nothing to record.
	if res := callIn(t, newRoundTrip(t, b).cs, "ses_prune", "tcall_stale", decision("always")); !strings.Contains(text(res), "no longer waiting") {
		t.Errorf("an answer to a pruned request = %s", text(res))
	}
}
