package wasm

import (
	"context"
	"errors"
	"sort"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/runtime"
)

func TestDiscoverNamesToolsAfterTheFileAndItsExports(t *testing.T) {
	t.Parallel()
	dir := configDir(t, map[string]string{"json.wasm": example(t, "json"), "echo.wasm": guest(t, "echo")})
	h := newHost(t, nil)
	tools, errs := h.Discover(context.Background(), []string{dir})
	if len(errs) > 0 {
		t.Fatalf("load errors: %v", errs)
	}
	var ids []string
	for _, tl := range tools {
		ids = append(ids, tl.ID())
	}
	want := []string{"echo", "json_format", "json_minify", "json_query"}
	sort.Strings(ids)
	if strings.Join(ids, ",") != strings.Join(want, ",") {
		t.Fatalf("tools = %v, want %v", ids, want)
	}
	def, err := tools[1].Init(context.Background(), runtime.InitContext{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(def.Description, "Pretty-print") || !strings.Contains(string(def.Parameters), `"indent"`) {
		t.Errorf("json_format description/schema not read: %q %s", def.Description, def.Parameters)
	}
}

func TestCallsReachTheGuestAndReturnItsResult(t *testing.T) {
	t.Parallel()
	dir := configDir(t, map[string]string{"json.wasm": example(t, "json"), "kitchen.wasm": guest(t, "kitchen")})
	tools := discover(t, newHost(t, nil), dir)
	tests := []struct {
		name, tool, args string
		want             string
		wantErr          string
	}{
		{"a named tool formats JSON", "json_format", `{"json": "{\"a\":[1,2]}"}`, "{\n  \"a\": [\n    1,\n    2\n  ]\n}", ""},
		{"another named tool of the same module answers", "json_query", `{"json": "{\"a\":[{\"b\":\"x\"}]}", "path": "a.0.b"}`, `"x"`, ""},
		{"a guest error reaches the model as a tool error", "json_query", `{"json": "{\"a\":1}", "path": "b"}`, "", `no key "b" at the top level`},
		{"invalid JSON is reported with its position", "json_minify", `{"json": "{\n  \"a\": }"}`, "", "line 2"},
		{"a failing handler's message is kept whole", "kitchen_fail", `{}`, "", "the thing is broken"},
		{"a structured result keeps its output", "kitchen_structured", `{}`, "out", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := call(t, tools[tt.tool], tt.args, nil)
			if tt.wantErr != "" {
				var ge *GuestError
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.As(err, &ge) {
					t.Fatalf("err = %v, want a GuestError containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.Output != tt.want {
				t.Errorf("output = %q, want %q", res.Output, tt.want)
			}
		})
	}
}

func TestStructuredResultKeepsTitleAndMetadata(t *testing.T) {
	t.Parallel()
	tools := discover(t, newHost(t, nil), configDir(t, map[string]string{"kitchen.wasm": guest(t, "kitchen")}))
	res, err := call(t, tools["kitchen_structured"], `{}`, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Title != "a title" || res.Metadata["k"] != "v" {
		t.Errorf("result = %+v", res)
	}
}

func TestExecuteReceivesTheCallContext(t *testing.T) {
	t.Parallel()
	tools := discover(t, newHost(t, nil), configDir(t, map[string]string{"kitchen.wasm": guest(t, "kitchen")}))
	tc := testContext(t, nil, nil)
	tc.MessageID, tc.Extra = "m7", map[string]any{"k": "v"}
	res, err := call(t, tools["kitchen_context"], `{}`, tc)
	if err != nil {
		t.Fatal(err)
	}
	got := mustJSON(t, res.Output)
	if got["SessionID"] != "s1" || got["CallID"] != "c1" || got["Agent"] != "build" || got["MessageID"] != "m7" {
		t.Errorf("context = %v", got)
	}
	if extra, _ := got["Extra"].(map[string]any); extra["k"] != "v" {
		t.Errorf("extra = %v", got["Extra"])
	}
}
