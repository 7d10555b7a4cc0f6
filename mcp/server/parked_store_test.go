package server_test

import (
	"context"
	"strings"
	"testing"

	sdk "github.com/toolhost/toolhost/internal/third_party/gosdk/mcp"

	"github.com/toolhost/toolhost/runtime/session"
)

func TestAnAnswerToACallWhoseReplicaDiedIsRecordedForTheRetry(t *testing.T) {
	t.Parallel()
	store := session.NewMemory()
	a, b := newReplica(t, store), newReplica(t, store)
	call := func(rt *roundTrip, state string, answer sdk.InputResponseMap) *sdk.CallToolResult {
		t.Helper()
		res, err := rt.cs.CallTool(context.Background(), &sdk.CallToolParams{
			Meta: sdk.Meta{"toolhost/session": "ses_orphan"}, Name: "guarded", Arguments: map[string]any{"path": "x"},
			RequestState: state, InputResponses: answer,
		})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	asked := call(newRoundTrip(t, a), "", nil)
	if !asked.NeedsInput() {
		t.Fatalf("guarded = %q; want an input request", text(asked))
	}
	// Replica a dies: it takes no answer any more, and releases nothing.
	a.srv.Close()
	rb := newRoundTrip(t, b)
	res := call(rb, asked.RequestState, sdk.InputResponseMap{"permission": &sdk.ElicitResult{Action: "accept", Content: map[string]any{"decision": "once"}}})
	if !res.IsError || !strings.Contains(text(res), "recorded for this session") {
		t.Fatalf("the answer to the dead replica's call = %q; want it recorded and a retry asked for", text(res))
	}
	if res := call(rb, "", nil); res.NeedsInput() || res.IsError || text(res) != "guarded x" {
		t.Fatalf("the call made again = %q (needs input %v); want it run without asking", text(res), res.NeedsInput())
	}
	if kvs, _ := store.List(t.Context(), "toolhost-mcp-parked", "parked"); len(kvs) != 0 {
		t.Errorf("parked records left: %v", kvs)
	}
}
