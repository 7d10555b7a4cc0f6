package hostfns

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/permission"
)

// An embedder's function often echoes what the guest sent in its error;
// the host's log (JSON, where the encoder writes U+202E and the other
// format characters raw) must not take a bidi override or escape from it.
func TestAFailingFunctionsErrorIsLoggedEscaped(t *testing.T) {
	t.Parallel()
	d, err := Define(Func[weatherArgs, forecast]{
		Name:       "weather",
		Permission: "weather",
		Patterns:   func(a weatherArgs) []string { return []string{a.City} },
		Run: func(_ context.Context, _ Caller, a weatherArgs) (forecast, error) {
			return forecast{}, errors.New("no such city: " + a.City)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	set, err := NewSet(d)
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	allow := permission.Ruleset{{Permission: "weather", Pattern: "*", Action: permission.Allow}}
	svc := permission.NewService(nil, nil, nil)
	tc := runtime.NewContext(runtime.Context{SessionID: "s1"}, nil, func(ctx context.Context, req permission.Request) error { return svc.Ask(ctx, allow, req) })
	c := &Call{Tool: "forecaster", Context: tc, Funcs: set, Logger: slog.New(slog.NewJSONHandler(&logs, nil)),
		Scope: permission.Scope{Tool: "forecaster", Source: "wasm"}}
	city := "x\nlevel=ERROR msg=\"forged\" \x1b[2J\u202e"
	req, _ := json.Marshal(map[string]any{"fn": "weather", "args": map[string]string{"city": city}})
	v, ok, err := Script(context.Background(), c, NameCall, req)
	if !ok || err != nil || v.(CallReply).Kind != KindFailed {
		t.Fatalf("Script(call) = %v, %v, %v", v, ok, err)
	}
	out := logs.String()
	if strings.Count(out, "\n") != 1 || strings.ContainsAny(out, "\x1b\u202e") {
		t.Fatalf("the log took the guest's text raw:\n%q", out)
	}
	if !strings.Contains(out, "host function failed") {
		t.Fatalf("no log line for the failure:\n%s", out)
	}
}
