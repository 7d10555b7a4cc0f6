package server

import (
	"strings"
	"testing"

	"github.com/toolhost/toolhost/runtime/permission"
)

// The elicitation for a wasm or JS tool's ask says that "always" approves
// it for that tool only, naming its source and file; a built-in's says
// nothing of the kind.
func TestPermissionFormShowsWhomAGuestsAlwaysApprovesFor(t *testing.T) {
	t.Parallel()
	scope := permission.Scope{Tool: "jira", Source: "js", File: "/src/p/.opencode/tool/jira.ts"}
	msg := permissionForm(permission.Request{Tool: "jira", Permission: "bash", Patterns: []string{"*"}, Always: []string{"*"}, Scope: scope}).Message
	if want := "jira (js, /src/p/.opencode/tool/jira.ts) asks: bash `*` — always applies to jira only"; !strings.Contains(msg, want) {
		t.Errorf("message lacks %q:\n%s", want, msg)
	}
	builtin := permissionForm(permission.Request{Tool: "bash", Permission: "bash", Patterns: []string{"ls"}, Always: []string{"ls *"}}).Message
	if strings.Contains(builtin, "applies to") {
		t.Errorf("a built-in's form names a scope:\n%s", builtin)
	}
}
