package python_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/config"
	"github.com/toolhost/toolhost/runtime/permission"
)

func TestAskAndMetadataGoThroughTheHost(t *testing.T) {
	f := load(t, "guarded.py", "")
	tools := map[string]runtime.Tool{}
	for _, tl := range f.Tools(nil) {
		tools[tl.ID()] = tl
	}
	// A one-second script limit, and a person who takes longer than
	// that to answer: waiting for them is not the script's time.
	cfg := &config.Config{Wasm: map[string]config.WasmConfig{"guarded": {TimeoutMS: 1000}}}
	tests := []struct {
		name, id string
		answer   error
		want     string
		wantErr  error
	}{
		{"an allowed ask lets the tool go on, after a slow person", "guarded", nil, "deployed prod", nil},
		{"a denied ask fails the call with the denial", "guarded", &permission.DeniedError{Permission: "deploy", Pattern: "prod"}, "", &permission.DeniedError{}},
		{"a rejected ask fails the call with the rejection", "guarded", &permission.RejectedError{Permission: "deploy"}, "", &permission.RejectedError{}},
		{"a refusal the tool catches is its own business", "guarded_caught", &permission.RejectedError{Permission: "deploy"}, "carried on:", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			var titles []string
			var asked []permission.Request
			var logged strings.Builder
			logger := slog.New(slog.NewTextHandler(&logged, nil))
			tc := runtime.NewContext(runtime.Context{SessionID: "s1", CallID: "c1", Tool: tt.id, Config: cfg, Logger: logger},
				func(title string, _ map[string]any) { mu.Lock(); titles = append(titles, title); mu.Unlock() },
				func(_ context.Context, r permission.Request) error {
					mu.Lock()
					asked = append(asked, r)
					mu.Unlock()
					if tt.answer == nil {
						time.Sleep(1500 * time.Millisecond)
					}
					return tt.answer
				})
			def, err := tools[tt.id].Init(context.Background(), runtime.InitContext{})
			if err != nil {
				t.Fatal(err)
			}
			res, err := def.Execute(context.Background(), json.RawMessage(`{"target":"prod"}`), tc)
			if tt.id == "guarded_caught" {
				res, err = def.Execute(context.Background(), json.RawMessage(`{}`), tc)
			}
			switch want := tt.wantErr.(type) {
			case nil:
				if err != nil || !strings.HasPrefix(res.Output, tt.want) {
					t.Fatalf("result = %+v, %v", res, err)
				}
			case *permission.DeniedError:
				if !errors.As(err, &want) {
					t.Fatalf("err = %#v, want a denial", err)
				}
			case *permission.RejectedError:
				if !errors.As(err, &want) {
					t.Fatalf("err = %#v, want a rejection", err)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if len(asked) == 0 || asked[len(asked)-1].Permission != "deploy" || asked[len(asked)-1].Patterns[0] != "prod" {
				t.Errorf("asked = %+v", asked)
			}
			if tt.id == "guarded" && (len(titles) == 0 || titles[0] != "asking") {
				t.Errorf("live metadata = %v", titles)
			}
			if tt.id == "guarded" && !strings.Contains(logged.String(), `msg="about to ask for prod" tool=guarded source=guest session=s1 call=c1`) {
				t.Errorf("print() did not reach the log: %s", logged.String())
			}
			if tt.id == "guarded" && tt.answer == nil && (res.Metadata["session"] != "s1" || res.Metadata["call"] != "c1") {
				t.Errorf("the context's ids = %v", res.Metadata)
			}
		})
	}
}
