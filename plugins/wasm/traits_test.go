package wasm

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/runtime"
)

func TestParseTraitsRefusesWhatItCannotUnderstand(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in string
		wantErr  string // "" when it parses
	}{
		{"an empty object declares nothing", `{}`, ""},
		{"a full declaration", `{"permission": "edit", "patterns_from": ["path", "paths"], "read_only": false, "destructive": true, "idempotent": true, "open_world": true}`, ""},
		{"a dotted permission key", `{"permission": "jira.issue"}`, ""},
		{"not JSON", `permission=edit`, "not a traits object"},
		{"an array", `["edit"]`, "not a traits object"},
		{"an unknown field", `{"checks_own_permission": true}`, "not a traits object"},
		{"a misspelt field", `{"permision": "edit"}`, "not a traits object"},
		{"two values", `{} {}`, "more than one JSON value"},
		{"an uppercase permission", `{"permission": "Edit"}`, "lowercase key"},
		{"a permission with spaces", `{"permission": "edit everything"}`, "lowercase key"},
		{"a wildcard permission", `{"permission": "*"}`, "lowercase key"},
		{"an overlong permission", `{"permission": "` + strings.Repeat("a", 65) + `"}`, "lowercase key"},
		{"a pattern source that is not an argument name", `{"patterns_from": ["../x"]}`, "not an argument name"},
		{"an empty pattern source", `{"patterns_from": [""]}`, "not an argument name"},
		{"too many pattern sources", `{"patterns_from": ["a","b","c","d","e","f","g","h","i"]}`, "at most 8"},
		{"read-only and destructive", `{"read_only": true, "destructive": true}`, "together"},
		{"a wrong type", `{"read_only": "yes"}`, "not a traits object"},
		{"an oversized declaration", `{"permission": "edit", "x": "` + strings.Repeat("a", 5000) + `"}`, "at most 4096"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := parseTraits([]byte(tt.in))
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("err = %v, want one saying %q", err, tt.wantErr)
			}
		})
	}
}

func TestPatternsFromCopesWithAnyArguments(t *testing.T) {
	t.Parallel()
	from := []string{"path", "paths"}
	tests := []struct {
		name, args string
		want       []string
	}{
		{"a string argument", `{"path": "a.md"}`, []string{"a.md"}},
		{"an array argument", `{"paths": ["a.md", "b.md"]}`, []string{"a.md", "b.md"}},
		{"both, in declaration order", `{"paths": ["b.md"], "path": "a.md"}`, []string{"a.md", "b.md"}},
		{"another type gives nothing", `{"path": 3}`, nil},
		{"a mixed array gives nothing", `{"paths": ["a", 1]}`, nil},
		{"empty strings give nothing", `{"path": ""}`, nil},
		{"arguments that are not an object", `[1,2]`, nil},
		{"not JSON", `{"path": `, nil},
		{"an overlong value is left out", `{"path": "` + strings.Repeat("x", 5000) + `"}`, nil},
	}
	for _, tt := range tests {
		if got := patternsFrom(from, json.RawMessage(tt.args)); !slices.Equal(got, tt.want) {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
	many, _ := json.Marshal(map[string][]string{"paths": slices.Repeat([]string{"x"}, 500)})
	if got := patternsFrom(from, many); len(got) != maxPatternsOfCall {
		t.Errorf("%d patterns from 500 values, want the cap %d", len(got), maxPatternsOfCall)
	}
}

// The module's declaration reaches the registry as claimed traits; a
// module declaring nothing gets the zero traits, claimed; a declaration
// toolhost cannot understand fails the load with a message naming the
// export.
func TestAModulesTraitsExportIsItsDeclaration(t *testing.T) {
	t.Parallel()
	h := newHost(t, nil)
	tools := discover(t, h, configDir(t, map[string]string{"declared.wasm": guest(t, "declared"), "edit.wasm": guest(t, "echo")}))
	tr := runtime.TraitsOf(tools["declared"])
	if !tr.Claimed || tr.Permission != "edit" || tr.ChecksOwnPermission || tr.Hints == nil || !tr.Hints.Destructive || tr.Hints.ReadOnly {
		t.Errorf("declared's traits %+v", tr)
	}
	if tr.Patterns == nil || !slices.Equal(tr.Patterns(json.RawMessage(`{"path": "notes.md"}`)), []string{"notes.md"}) {
		t.Error("declared's patterns do not come from its path argument")
	}
	if tr := runtime.TraitsOf(tools["edit"]); !tr.Claimed || tr.Permission != "" || tr.Hints != nil || tr.Patterns != nil {
		t.Errorf("edit.wasm, which declares nothing, has traits %+v", tr)
	}

	_, errs := h.Discover(context.Background(), []string{configDir(t, map[string]string{"badtraits.wasm": guest(t, "badtraits")})})
	if len(errs) != 1 || !strings.Contains(errs[0].Reason, "traits of badtraits") || !strings.Contains(errs[0].Reason, "lowercase key") {
		t.Errorf("load errors %v, want badtraits refused naming its traits export", errs)
	}
}
