package wasm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/config"
	"github.com/toolhost/toolhost/runtime/permission"
	"github.com/toolhost/toolhost/runtime/session"
)

func kitchen(t *testing.T, cfg *config.Config) map[string]runtime.Tool {
	t.Helper()
	return discover(t, newHost(t, cfg), configDir(t, map[string]string{"kitchen.wasm": guest(t, "kitchen")}))
}

func TestAskGoesThroughTheCallersPermissionEngine(t *testing.T) {
	t.Parallel()
	tools := kitchen(t, nil)
	tests := []struct {
		name    string
		answer  error
		tool    string
		want    string
		wantErr any
	}{
		{"an allowed request lets the guest act", nil, "kitchen_ask", "did it", nil},
		{"a rule's denial comes back as the typed denial", &permission.DeniedError{Permission: "edit", Pattern: "x"}, "kitchen_ask", "", new(*permission.DeniedError)},
		{"a person's rejection comes back as the typed rejection", &permission.RejectedError{Permission: "edit"}, "kitchen_ask", "", new(*permission.RejectedError)},
		{"a correction keeps the person's message", &permission.CorrectedError{Permission: "edit", Message: "use the other file"}, "kitchen_ask", "", new(*permission.CorrectedError)},
		{"a guest may handle a refusal itself", &permission.CorrectedError{Permission: "edit", Message: "not now"}, "kitchen_askhandled", "refused (corrected): the user rejected permission to use edit with this feedback: not now", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got []permission.Request
			var mu sync.Mutex
			tc := testContext(t, nil, func(ctx context.Context, req permission.Request) error {
				mu.Lock()
				got = append(got, req)
				mu.Unlock()
				return tt.answer
			})
			tc.Tool = tt.tool
			res, err := call(t, tools[tt.tool], `{"pattern": "src/a.go"}`, tc)
			if tt.wantErr != nil {
				if !errors.As(err, tt.wantErr) {
					t.Fatalf("err = %T %v, want %T", err, err, tt.wantErr)
				}
				if err.Error() != tt.answer.Error() {
					t.Errorf("message = %q, want %q", err, tt.answer)
				}
			} else if err != nil {
				t.Fatal(err)
			} else if res.Output != tt.want {
				t.Errorf("output = %q, want %q", res.Output, tt.want)
			}
			if len(got) != 1 || got[0].Permission != "edit" || strings.Join(got[0].Patterns, ",") != "src/a.go" ||
				got[0].SessionID != "s1" || got[0].CallID != "c1" || got[0].Tool != tt.tool {
				t.Errorf("asked %+v", got)
			}
		})
	}
}

func TestWaitingForPermissionDoesNotCountAgainstTheTimeout(t *testing.T) {
	t.Parallel()
	cfg := &config.Config{Wasm: map[string]config.WasmConfig{"kitchen": {TimeoutMS: 500}}}
	tools := kitchen(t, cfg)
	// A first call initialises the guest's runtime (which counts as its
	// own time), so the measured call runs on a warm pooled instance.
	if _, err := call(t, tools["kitchen_structured"], `{}`, nil); err != nil {
		t.Fatal(err)
	}
	tc := testContext(t, nil, func(ctx context.Context, req permission.Request) error {
		select { // a person thinking for longer than the guest may run
		case <-time.After(1500 * time.Millisecond):
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	})
	res, err := call(t, tools["kitchen_ask"], `{"pattern": "x"}`, tc)
	if err != nil || res.Output != "did it" {
		t.Fatalf("res = %+v, err = %v", res, err)
	}
}

func TestCancellingTheCallEndsItWhileBlockedInAsk(t *testing.T) {
	t.Parallel()
	tools := kitchen(t, nil)
	asked := make(chan struct{})
	tc := testContext(t, nil, func(ctx context.Context, req permission.Request) error {
		close(asked)
		<-ctx.Done()
		return ctx.Err()
	})
	def, _ := tools["kitchen_ask"].Init(context.Background(), runtime.InitContext{})
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-asked; cancel() }()
	_, err := def.Execute(ctx, json.RawMessage(`{"pattern": "x"}`), tc)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	// The instance was discarded; the tool still works.
	tc = testContext(t, nil, func(context.Context, permission.Request) error { return nil })
	if res, err := call(t, tools["kitchen_ask"], `{"pattern": "x"}`, tc); err != nil || res.Output != "did it" {
		t.Fatalf("after cancel: %+v, %v", res, err)
	}
}

func TestMetadataReachesTheCallerLiveAndLogsReachTheLog(t *testing.T) {
	t.Parallel()
	tools := kitchen(t, nil)
	var titles []string
	var buf bytes.Buffer
	var mu sync.Mutex
	tc := testContext(t, func(title string, meta map[string]any) {
		mu.Lock()
		defer mu.Unlock()
		titles = append(titles, title)
	}, nil)
	tc.Tool = "kitchen_progress"
	tc.Logger = slog.New(slog.NewTextHandler(&lockedWriter{w: &buf, mu: &mu}, nil))
	if _, err := call(t, tools["kitchen_progress"], `{}`, tc); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock() // the call is over; nothing else writes
	if strings.Join(titles, ",") != "step 1,step 2,step 3" {
		t.Errorf("metadata titles = %v", titles)
	}
	if !strings.Contains(buf.String(), "progress done") || !strings.Contains(buf.String(), "tool=kitchen_progress") {
		t.Errorf("log = %q", buf.String())
	}
}

type lockedWriter struct {
	w  *bytes.Buffer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func TestStateFollowsTheSessionNotTheInstance(t *testing.T) {
	t.Parallel()
	store, err := session.Open(filepath.Join(t.TempDir(), "sessions.db"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name  string
		store session.Store
	}{{"in a bbolt store", store}, {"in a memory store", session.NewMemory()}} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tools := kitchen(t, nil)
			count := func(sessionID string) string {
				tc := testContext(t, nil, nil)
				tc.SessionID, tc.Store = sessionID, tt.store
				res, err := call(t, tools["kitchen_counter"], `{}`, tc)
				if err != nil {
					t.Fatal(err)
				}
				return res.Output
			}
			got := []string{count("a"), count("a"), count("b"), count("a")}
			if strings.Join(got, ",") != "1,2,1,3" {
				t.Errorf("counts = %v, want 1,2,1,3", got)
			}
			v, ok, err := tt.store.Get(context.Background(), "a", "wasm:kitchen_counter", "n")
			if err != nil || !ok || string(v) != "3" {
				t.Errorf("stored = %q %v %v", v, ok, err)
			}
		})
	}
}

func TestStateOfSessionLessCallsStaysInThePluginHost(t *testing.T) {
	t.Parallel()
	store, err := session.Open(filepath.Join(t.TempDir(), "sessions.db"))
	if err != nil {
		t.Fatal(err)
	}
	tools := kitchen(t, nil)
	count := func() string {
		tc := testContext(t, nil, nil)
		tc.SessionID, tc.Store = "", store
		res, err := call(t, tools["kitchen_counter"], `{}`, tc)
		if err != nil {
			t.Fatal(err)
		}
		return res.Output
	}
	if got := count() + "," + count(); got != "1,2" {
		t.Errorf("counts = %s, want 1,2", got)
	}
	for _, sid := range []string{"anonymous", "default"} {
		if kvs, err := store.List(t.Context(), sid, "wasm:kitchen_counter"); err != nil || len(kvs) != 0 {
			t.Errorf("session-less state reached the shared store under %q: %v %v", sid, kvs, err)
		}
	}
}

func TestConfigReachesTheGuestWithEnvIndirection(t *testing.T) {
	os.Setenv("TOOLHOST_TEST_TOKEN", "s3cret")
	t.Cleanup(func() { os.Unsetenv("TOOLHOST_TEST_TOKEN") })
	cfg := &config.Config{Wasm: map[string]config.WasmConfig{"kitchen": {Config: map[string]string{
		"greeting": "hello", "token_env": "TOOLHOST_TEST_TOKEN", "missing_env": "TOOLHOST_TEST_UNSET",
	}}}}
	tools := kitchen(t, cfg)
	tests := []struct{ key, want, wantErr string }{
		{"greeting", "hello", ""},
		{"token", "s3cret", ""},
		{"token_env", "", "not set"},
		{"missing", "", "not set"},
	}
	for _, tt := range tests {
		res, err := call(t, tools["kitchen_config"], `{"key": "`+tt.key+`"}`, nil)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("config %s: err = %v", tt.key, err)
			}
			continue
		}
		if err != nil || res.Output != tt.want {
			t.Errorf("config %s = %q, %v; want %q", tt.key, res.Output, err, tt.want)
		}
	}
}
