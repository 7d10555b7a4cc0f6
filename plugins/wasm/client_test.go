package wasm

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/config"
)

func clientTools(t *testing.T, cfg *config.Config) map[string]runtime.Tool {
	t.Helper()
	return discover(t, newHost(t, cfg), configDir(t, map[string]string{"client.wasm": guest(t, "client")}))
}

type fakeSampler struct {
	mu   sync.Mutex
	reqs []runtime.SampleRequest
	err  error
}

func (f *fakeSampler) Sample(_ context.Context, req runtime.SampleRequest) (runtime.SampleResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reqs = append(f.reqs, req)
	if f.err != nil {
		return runtime.SampleResult{}, f.err
	}
	return runtime.SampleResult{Role: "assistant", Model: "m1", Content: runtime.SampleContent{Type: "text", Text: "hello back"}}, nil
}

type fakeElicitor struct{ got runtime.ElicitRequest }

func (f *fakeElicitor) Elicit(_ context.Context, req runtime.ElicitRequest) (runtime.ElicitResult, error) {
	f.got = req
	return runtime.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
}

// TestSamplingIsRefusedUnlessGrantedAndThenReachesTheClientsModel: a
// module may spend the user's model budget only with "sampling": true;
// granted, its request reaches the client as written, and a client that
// cannot sample gives the guest an error it can handle.
func TestSamplingIsRefusedUnlessGrantedAndThenReachesTheClientsModel(t *testing.T) {
	t.Parallel()
	t.Run("without the grant the call fails naming the key to set", func(t *testing.T) {
		t.Parallel()
		tools := clientTools(t, nil)
		s := &fakeSampler{}
		tc := testContext(t, nil, nil)
		tc.Client.Sampler = s
		_, err := call(t, tools["client_sample"], `{"prompt": "hi"}`, tc)
		if err == nil || !strings.Contains(err.Error(), `"sampling": true`) || !strings.Contains(err.Error(), "wasm.client") {
			t.Fatalf("err = %v, want a refusal naming the sampling grant", err)
		}
		if len(s.reqs) != 0 {
			t.Errorf("the client was asked anyway: %+v", s.reqs)
		}
	})
	grant := &config.Config{Wasm: map[string]config.WasmConfig{"client": {Sampling: true}}}
	tests := []struct {
		name    string
		sampler runtime.Sampler
		args    string
		want    string
		wantErr string
	}{
		{"granted, the client's model answers", &fakeSampler{}, `{"prompt": "hi"}`, "m1 said hello back", ""},
		{"a client that cannot sample is an answer the guest handles", nil, `{"prompt": "hi"}`, "no sample: " + runtime.ErrNoSampling.Error(), ""},
		{"a client's refusal reaches the guest", &fakeSampler{err: errors.New("user declined")}, `{"prompt": "hi"}`, "no sample: user declined", ""},
		{"a request for too many tokens aborts the guest", &fakeSampler{}, `{"prompt": "hi", "max_tokens": 1000000}`, "", "maxTokens"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tools := clientTools(t, grant)
			tc := testContext(t, nil, nil)
			tc.Client.Sampler = tt.sampler
			res, err := call(t, tools["client_sample"], tt.args, tc)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one naming %s", err, tt.wantErr)
				}
				return
			}
			if err != nil || res.Output != tt.want {
				t.Fatalf("output = %q, err = %v; want %q", res.Output, err, tt.want)
			}
			if s, ok := tt.sampler.(*fakeSampler); ok && s.err == nil {
				if len(s.reqs) != 1 || s.reqs[0].MaxTokens != 50 || s.reqs[0].Messages[0].Content.Text != "hi" || s.reqs[0].Messages[0].Role != "user" {
					t.Errorf("the client was asked %+v", s.reqs)
				}
			}
		})
	}
}

// TestElicitAsksTheClientsUserWithTheToolsSchema: the guest's message and
// schema reach the client untouched, the answer comes back, and without a
// client that can ask, the guest hears so.
func TestElicitAsksTheClientsUserWithTheToolsSchema(t *testing.T) {
	t.Parallel()
	tools := clientTools(t, nil)
	e := &fakeElicitor{}
	tc := testContext(t, nil, nil)
	tc.Client.Elicitor = e
	res, err := call(t, tools["client_elicit"], `{"message": "Who are you?"}`, tc)
	if err != nil || res.Output != `accept {"name":"Ada"}` {
		t.Fatalf("output = %q, err = %v", res.Output, err)
	}
	props, _ := e.got.RequestedSchema["properties"].(map[string]any)
	if e.got.Message != "Who are you?" || e.got.RequestedSchema["type"] != "object" || props["name"] == nil {
		t.Errorf("the client was asked %+v", e.got)
	}
	res, err = call(t, tools["client_elicit"], `{"message": "Who are you?"}`, testContext(t, nil, nil))
	if err != nil || res.Output != "no answer: "+runtime.ErrNoElicitation.Error() {
		t.Fatalf("without an elicitor: output = %q, err = %v", res.Output, err)
	}
}

// TestGuestLogsReachTheClientAsWellAsTheHostLog: every line goes to the
// client at its level, even those the host's own log drops.
func TestGuestLogsReachTheClientAsWellAsTheHostLog(t *testing.T) {
	t.Parallel()
	tools := clientTools(t, nil)
	type line struct {
		level slog.Level
		msg   string
	}
	var mu sync.Mutex
	var got []line
	tc := testContext(t, nil, nil)
	tc.Logger = slog.New(slog.DiscardHandler)
	tc.Client.Log = func(_ context.Context, level slog.Level, msg string) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, line{level, msg})
	}
	if _, err := call(t, tools["client_log"], `{}`, tc); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 2 || got[0] != (line{slog.LevelInfo, "first line"}) || got[1] != (line{slog.LevelError, "second line"}) {
		t.Errorf("client got %+v", got)
	}
}
