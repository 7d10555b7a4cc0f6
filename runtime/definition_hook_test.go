package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// defHook is a Hook that also changes definitions.
type defHook struct {
	HookFuncs
	fn func(in *DefinitionInput) error
}

func (h defHook) Definition(_ context.Context, in *DefinitionInput) error { return h.fn(in) }

func TestDefinitionHooksChangeWhatTheModelSeesAndBadOnesAreSkipped(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		hook     func(in *DefinitionInput) error
		wantDesc string
		wantProp string
	}{
		{"a hook appends to the description", func(in *DefinitionInput) error {
			in.Description += " (audited)"
			return nil
		}, "Echo text back. (audited)", "text"},
		{"a hook replaces the parameters", func(in *DefinitionInput) error {
			in.Parameters = json.RawMessage(`{"type":"object","properties":{"words":{"type":"string"}}}`)
			return nil
		}, "Echo text back.", "words"},
		{"a failing hook leaves the definition alone", func(in *DefinitionInput) error {
			in.Description = "changed before failing"
			return errors.New("boom")
		}, "Echo text back.", "text"},
		{"a hook returning an invalid schema is ignored", func(in *DefinitionInput) error {
			in.Parameters = json.RawMessage(`{"type":"object","properties":{"x":{"type":"nonsense"}}}`)
			return nil
		}, "Echo text back.", "text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := newTestRegistry(t, nil)
			r.Add(SourceBuiltin, echoTool("echo"))
			// Prepare once before the hook exists: AddHook must drop the
			// cached definition.
			if _, err := r.Tools(context.Background(), "", ""); err != nil {
				t.Fatal(err)
			}
			r.AddHook(defHook{fn: tt.hook})
			tools, err := r.Tools(context.Background(), "", "")
			if err != nil {
				t.Fatal(err)
			}
			if len(tools) != 1 {
				t.Fatalf("tools = %v", tools)
			}
			if tools[0].Description != tt.wantDesc {
				t.Errorf("description = %q, want %q", tools[0].Description, tt.wantDesc)
			}
			if !strings.Contains(string(tools[0].Parameters), `"`+tt.wantProp+`"`) {
				t.Errorf("parameters = %s, want property %s", tools[0].Parameters, tt.wantProp)
			}
		})
	}
}

// TestAFailedDefinitionHookIsAskedAgain: a definition hook that fails once
// (a timeout on a busy machine, a trapped instance) is not remembered as
// "no change": the next listing asks it again and sees its change.
func TestAFailedDefinitionHookIsAskedAgain(t *testing.T) {
	t.Parallel()
	r := newTestRegistry(t, nil)
	r.Add(SourceBuiltin, echoTool("echo"))
	calls := 0
	r.AddHook(defHook{fn: func(in *DefinitionInput) error {
		calls++
		if calls == 1 {
			return errors.New("timed out")
		}
		in.Description += " (audited)"
		return nil
	}})
	for i, want := range []string{"Echo text back.", "Echo text back. (audited)", "Echo text back. (audited)"} {
		tools, err := r.Tools(context.Background(), "", "")
		if err != nil {
			t.Fatal(err)
		}
		if len(tools) != 1 || tools[0].Description != want {
			t.Errorf("listing %d: %+v, want description %q", i+1, tools, want)
		}
	}
	if calls != 2 {
		t.Errorf("hook called %d times, want 2 (the successful result is cached)", calls)
	}
}
