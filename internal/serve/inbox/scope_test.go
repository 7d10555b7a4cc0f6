package inbox_test

import (
	"html"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/runtime/permission"
)

// A wasm or JS tool's ask may name any permission; the inbox says whose
// "always" it is — on the page and in the API — and the session's
// approvals list it with its scope.
func TestTheInboxShowsWhomAGuestsAlwaysApprovesFor(t *testing.T) {
	t.Parallel()
	f := newFixture(t, fixtureOptions{})
	scope := permission.Scope{Tool: "jira", Source: "wasm", File: "/opt/tools/jira.wasm"}
	go f.ib.Ask(t.Context(), permission.Request{
		SessionID: "ses_1", Tool: "jira", Permission: "bash", Patterns: []string{"*"}, Always: []string{"*"}, Scope: scope,
	})
	reqs := f.waitPending(t, 1)
	want := "jira (wasm, /opt/tools/jira.wasm) asks: bash `*` — always applies to jira only"
	if reqs[0].Scope != scope || reqs[0].ScopeNote != want {
		t.Errorf("API request scope %+v note %q, want %+v %q", reqs[0].Scope, reqs[0].ScopeNote, scope, want)
	}
	for _, path := range []string{"/", "/fragments/requests"} {
		res, err := http.Get(f.url + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if page := html.UnescapeString(string(b)); !strings.Contains(page, want) {
			t.Errorf("%s does not show %q", path, want)
		}
	}
}
