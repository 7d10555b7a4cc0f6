package server_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	sdk "github.com/toolhost/toolhost/internal/third_party/gosdk/mcp"

	"github.com/toolhost/toolhost/builtins"
	"github.com/toolhost/toolhost/mcp/server"
	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/config"
	"github.com/toolhost/toolhost/runtime/session"
)

// newReplica is a fixture whose registry and relay use store, shared with
// other replicas: what two `toolhost mcp --http` processes on one
// PostgreSQL database are, in memory.
func newReplica(t *testing.T, store session.Store, opts ...server.Options) *fixture {
	t.Helper()
	var cfg config.Config
	if err := json.Unmarshal([]byte(`{"permission": {"guarded": "ask"}}`), &cfg); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	reg, err := runtime.NewRegistry(runtime.Options{Config: &cfg, Store: store, Asker: server.Asker{}, Directory: dir, DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	reg.Add(runtime.SourceBuiltin, builtins.All(builtins.Options{})...)
	reg.Add(runtime.SourceRuntime, testTools()...)
	o := server.Options{}
	if len(opts) > 0 {
		o = opts[0]
	}
	o.Relay = store
	srv, err := server.New(context.Background(), reg, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return &fixture{dir: dir, reg: reg, srv: srv}
}

func TestAnAskParkedOnOneReplicaIsAnsweredThroughAnother(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		answer sdk.InputResponseMap
		want   string
		isErr  bool
	}{
		{"once runs the call where it waits", sdk.InputResponseMap{"permission": &sdk.ElicitResult{Action: "accept", Content: map[string]any{"decision": "once"}}}, "guarded x", false},
		{"a rejection is the person's no", sdk.InputResponseMap{"permission": &sdk.ElicitResult{Action: "decline"}}, msgRejected, true},
		{"no answer at all is unanswered, not allowed", nil, unansweredMsg(whyNoAnswer), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			store := session.NewMemory()
			a, b := newReplica(t, store), newReplica(t, store)
			asked := newRoundTrip(t, a).ask(t)
			res := newRoundTrip(t, b).answer(t, asked, tt.answer)
			if res.IsError != tt.isErr || text(res) != tt.want {
				t.Errorf("isError %v, the model receives\n%s\nwant\n%s", res.IsError, text(res), tt.want)
			}
		})
	}
}

func TestAnAnswerNoReplicaWaitsForIsExpired(t *testing.T) {
	t.Parallel()
	store := session.NewMemory()
	a, b := newReplica(t, store), newReplica(t, store)
	asked := newRoundTrip(t, a).ask(t)
	// A forged or stale state: no replica holds it.
	forged := *asked
	forged.RequestState = "tcall_00000000000000000000000000000000"
	res := newRoundTrip(t, b).answer(t, &forged, sdk.InputResponseMap{"permission": &sdk.ElicitResult{Action: "accept", Content: map[string]any{"decision": "once"}}})
	if !res.IsError || !strings.Contains(text(res), "no longer waiting") {
		t.Fatalf("an answer to a call nobody holds = %s; want the call-expired error", text(res))
	}
	if kvs, _ := store.List(t.Context(), "toolhost-mcp-parked", "answer"); len(kvs) != 0 {
		t.Errorf("the withdrawn answer is still stored: %v", kvs)
	}
	// The real call is still waiting and can be answered.
	res = newRoundTrip(t, b).answer(t, asked, sdk.InputResponseMap{"permission": &sdk.ElicitResult{Action: "accept", Content: map[string]any{"decision": "once"}}})
	if res.IsError || text(res) != "guarded x" {
		t.Errorf("the real call after a forged answer: %s", text(res))
	}
}
