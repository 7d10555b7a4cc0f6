package wasm

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/hostfns"
	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/permission"
)

type cityArgs struct {
	City string `json:"city"`
}

// hostcallTool loads the hostcall guest on an engine whose embedder added
// one host function, weather, governed by the permission "weather".
func hostcallTool(t *testing.T, ran *int) runtime.Tool {
	t.Helper()
	weather, err := hostfns.Define(hostfns.Func[cityArgs, map[string]string]{
		Name: "weather", Permission: "weather",
		Patterns: func(a cityArgs) []string { return []string{a.City} },
		Run: func(_ context.Context, c hostfns.Caller, a cityArgs) (map[string]string, error) {
			*ran++
			return map[string]string{"sky": "clear over " + a.City, "asker": c.Tool + "/" + c.Source}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	set, err := hostfns.NewSet(weather)
	if err != nil {
		t.Fatal(err)
	}
	h := NewEngine(EngineOptions{CacheDir: sharedCache, HostFuncs: set})
	t.Cleanup(func() { h.Close(context.Background()) })
	return discover(t, h, configDir(t, map[string]string{"hostcall.wasm": guest(t, "hostcall")}))["hostcall_run"]
}

func TestAWasmGuestCallsTheEmbeddersHostFunctionUnderItsPermission(t *testing.T) {
	t.Parallel()
	rules := permission.Ruleset{
		{Permission: "weather", Pattern: "*", Action: permission.Allow},
		{Permission: "weather", Pattern: "mars", Action: permission.Deny},
	}
	tests := []struct {
		name    string
		args    string
		want    string
		wantErr string // permission.Kind of the call's error
		wantRan int
	}{
		{"an allowed call returns the function's result", `{"fn":"weather","args":{"city":"paris"}}`, `{"asker":"hostcall_run/wasm","sky":"clear over paris"}`, "", 1},
		{"a deny rule fails the tool with the typed denial", `{"fn":"weather","args":{"city":"mars"}}`, "", "denied", 0},
		{"an undefined function is an answer the guest handles", `{"fn":"rain","args":{}}`, `host error unknown: call "rain": this host has no such function (it has: weather)`, "", 0},
		{"arguments it does not take do not run it", `{"fn":"weather","args":{"city":["paris"]}}`, "host error invalid:", "", 0},
		{"a built-in's name is not a way in", `{"fn":"ask","args":{"permission":"bash"}}`, "host error unknown:", "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var ran int
			tl := hostcallTool(t, &ran)
			svc := permission.NewService(nil, nil, nil)
			tc := testContext(t, nil, func(ctx context.Context, req permission.Request) error { return svc.Ask(ctx, rules, req) })
			res, err := call(t, tl, tt.args, tc)
			switch {
			case tt.wantErr != "":
				var denied *permission.DeniedError
				if string(permission.Kind(err)) != tt.wantErr || !errors.As(err, &denied) {
					t.Fatalf("err = %v, want the %s permission error", err, tt.wantErr)
				}
			case err != nil:
				t.Fatal(err)
			case !strings.HasPrefix(res.Output, tt.want):
				t.Errorf("output = %q, want %q", res.Output, tt.want)
			}
			if ran != tt.wantRan {
				t.Errorf("the function ran %d times, want %d", ran, tt.wantRan)
			}
		})
	}
}
