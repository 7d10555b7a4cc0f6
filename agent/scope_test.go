package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/runtime/permission"
)

// The agent loop reports each question before a person answers it; a
// wasm or JS tool's carries its scope, in words and as data.
func TestAPermissionAskedEventSaysWhomAGuestsAlwaysApprovesFor(t *testing.T) {
	t.Parallel()
	var got []Event
	asker := NotifyAsker(permission.AskerFunc(func(context.Context, permission.Request) (permission.Reply, error) {
		return permission.Reply{Kind: permission.Once}, nil
	}), func(e Event) { got = append(got, e) })
	scope := permission.Scope{Tool: "jira", Source: "js", File: "/src/p/.opencode/tool/jira.ts"}
	if _, err := asker.Ask(t.Context(), permission.Request{Tool: "jira", Permission: "bash", Patterns: []string{"*"}, Always: []string{"*"}, Scope: scope}); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Permission == nil || got[0].Permission.Scope != scope {
		t.Fatalf("events %+v, want one carrying the scope", got)
	}
	if !strings.HasSuffix(got[0].ScopeNote, "always applies to jira only") || !strings.Contains(got[0].ScopeNote, "/src/p/.opencode/tool/jira.ts") {
		t.Errorf("scope note %q, want it to name the tool and file", got[0].ScopeNote)
	}
}
