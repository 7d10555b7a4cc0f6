package python_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/hostfns"
	"github.com/toolhost/toolhost/plugins/python"
	"github.com/toolhost/toolhost/plugins/python/pytooltest"
	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/permission"
)

type cityArgs struct {
	City string `json:"city"`
}

func TestAPythonToolCallsTheEmbeddersHostFunctionUnderItsPermission(t *testing.T) {
	t.Parallel()
	var ran int
	weather, err := hostfns.Define(hostfns.Func[cityArgs, string]{
		Name: "weather", Permission: "weather",
		Patterns: func(a cityArgs) []string { return []string{a.City} },
		Run: func(_ context.Context, c hostfns.Caller, a cityArgs) (string, error) {
			ran++
			return "clear over " + a.City + " for " + c.Tool + "/" + c.Source, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	set, err := hostfns.NewSet(weather)
	if err != nil {
		t.Fatal(err)
	}
	f, err := python.Load(context.Background(), filepath.Join("testdata", "forecast.py"), python.LoadOptions{Runtime: pytooltest.Runtime(t), CacheDir: t.TempDir(), PoolSize: -1, HostFuncs: set})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close(context.Background()) })
	def, err := f.Tools(nil)[0].Init(context.Background(), runtime.InitContext{})
	if err != nil {
		t.Fatal(err)
	}
	rules := permission.Ruleset{
		{Permission: "weather", Pattern: "*", Action: permission.Allow},
		{Permission: "weather", Pattern: "mars", Action: permission.Deny},
	}
	tests := []struct {
		name    string
		args    string
		want    string
		wantErr string // permission.Kind
		wantRan int
	}{
		{"an allowed call returns the function's result", `{"fn":"weather","city":"paris"}`, "clear over paris for forecast/python", "", 1},
		{"a deny rule fails the tool with the typed denial", `{"fn":"weather","city":"mars"}`, "", "denied", 0},
		{"an undefined function is an error the tool can catch", `{"fn":"rain","city":"paris"}`, `host error unknown: call "rain": this host has no such function`, "", 0},
		{"arguments it does not take do not run it", `{"fn":"weather","city":7}`, "host error invalid:", "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ran = 0
			svc := permission.NewService(nil, nil, nil)
			tc := runtime.NewContext(runtime.Context{SessionID: "s", Tool: "forecast"}, nil, func(ctx context.Context, req permission.Request) error {
				return svc.Ask(ctx, rules, req)
			})
			res, err := def.Execute(context.Background(), json.RawMessage(tt.args), tc)
			switch {
			case tt.wantErr != "":
				if string(permission.Kind(err)) != tt.wantErr {
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
