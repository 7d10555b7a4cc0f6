package permission

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/runtime/session"
)

var (
	userJira    = Scope{Tool: "jira", Source: "wasm", File: "/home/u/.config/toolhost/tool/jira.wasm"}
	projectJira = Scope{Tool: "jira", Source: "js", File: "/proj/.opencode/tool/jira.ts"}
	otherGuest  = Scope{Tool: "notes", Source: "wasm", File: "/home/u/.config/toolhost/tool/notes.wasm"}
)

func scoped(s Scope, patterns, always []string) Request {
	r := bashRequest("s1", patterns, always)
	r.Scope = s
	return r
}

// A guest's "always" to its own ask("bash", "*") is the guest's: the
// built-in bash, another guest and a tool that takes over the guest's id
// from another file are all asked again; the guest itself is not.
func TestServiceAlwaysToAGuestsAskApprovesThatGuestOnly(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "sessions.db")
	a := newBlockingAsker()
	svc := NewService(openStore(t, path), a, nil)
	call, done := start(t, svc, a, askAll, scoped(userJira, []string{"*"}, []string{"*"}))
	call.reply <- Reply{Kind: Always}
	if err := <-done; err != nil {
		t.Fatal(err)
	}

	// Another process on the same store, with no one to ask: what the
	// approval covers runs, the rest is refused (asked, with no asker).
	other := NewService(openStore(t, path), nil, nil)
	tests := []struct {
		name    string
		req     Request
		allowed bool
	}{
		{"the same guest asking again is approved", scoped(userJira, []string{"curl x"}, nil), true},
		{"the built-in bash running rm -rf x is still asked", bashRequest("s1", []string{"rm -rf x"}, nil), false},
		{"another guest asking for bash is asked", scoped(otherGuest, []string{"ls"}, nil), false},
		{"a tool of the same id from another file is asked", scoped(projectJira, []string{"ls"}, nil), false},
		{"a guest scoped by id alone is not the guest with a file", scoped(Scope{Tool: "jira"}, []string{"ls"}, nil), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := other.Ask(t.Context(), askAll, tt.req)
			if tt.allowed && err != nil {
				t.Errorf("Ask = %v, want allowed", err)
			}
			if !tt.allowed && Kind(err) != "denied" {
				t.Errorf("Ask = %v, want it refused for want of someone to ask", err)
			}
		})
	}

	// The built-in view of the session holds no approval; the stored rule
	// carries its scope.
	if got, _ := other.Approved(t.Context(), "s1"); len(got) != 0 {
		t.Errorf("Approved (built-ins) = %v, want none", got)
	}
	all, err := other.Approvals(t.Context(), "s1")
	if err != nil || len(all) != 1 || all[0].Scope != userJira {
		t.Fatalf("Approvals = %v, %v; want one rule scoped to %v", all, err, userJira)
	}
	if s := all[0].String(); !strings.Contains(s, "for jira (wasm, ") {
		t.Errorf("rule reads %q, want it to name its scope", s)
	}
}

// Approvals stored before scopes existed carry none and keep approving the
// built-in tools' requests, and only theirs.
func TestServiceUnscopedStoredApprovalsKeepWorkingForBuiltins(t *testing.T) {
	t.Parallel()
	st := session.NewMemory()
	old, _ := json.Marshal([]map[string]string{{"permission": "bash", "pattern": "npm *", "action": "allow", "source": ApprovalSource}})
	if err := st.Update(t.Context(), "s1", StoreNamespace, StoreKeyApproved, func([]byte, bool) ([]byte, error) { return old, nil }); err != nil {
		t.Fatal(err)
	}
	svc := NewService(st, nil, nil)
	if err := svc.Ask(t.Context(), askAll, bashRequest("s1", []string{"npm test"}, nil)); err != nil {
		t.Errorf("built-in bash under an old approval = %v, want allowed", err)
	}
	if err := svc.Ask(t.Context(), askAll, scoped(userJira, []string{"npm test"}, nil)); Kind(err) != "denied" {
		t.Errorf("a guest under a built-in's approval = %v, want it asked (refused here)", err)
	}
}

// A scoped "always" settles the same guest's other pending requests, but
// not a built-in's waiting beside it.
func TestServiceScopedAlwaysSettlesOnlyItsOwnScopesPendingRequests(t *testing.T) {
	t.Parallel()
	a := newBlockingAsker()
	svc := NewService(session.NewMemory(), a, nil)
	builtin, builtinDone := start(t, svc, a, askAll, bashRequest("s1", []string{"rm -rf x"}, nil))
	guest, guestDone := start(t, svc, a, askAll, scoped(userJira, []string{"ls"}, []string{"*"}))
	guest.reply <- Reply{Kind: Always}
	if err := <-guestDone; err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-builtinDone:
		t.Fatalf("the built-in's request was settled by the guest's approval: %v", err)
	default:
	}
	builtin.reply <- Reply{Kind: Reject}
	if err := <-builtinDone; Kind(err) != "rejected" {
		t.Errorf("built-in = %v, want rejected", err)
	}
}

func TestAlwaysNoteNamesTheScope(t *testing.T) {
	t.Parallel()
	got := AlwaysNote(scoped(userJira, []string{"rm x"}, []string{"*"}))
	want := "jira (wasm, /home/u/.config/toolhost/tool/jira.wasm) asks: bash `*` — always applies to jira only"
	if got != want && !strings.HasSuffix(got, "— always applies to jira only") {
		t.Errorf("AlwaysNote = %q, want %q", got, want)
	}
	if got := AlwaysNote(bashRequest("s1", []string{"ls"}, []string{"ls *"})); got != "" {
		t.Errorf("AlwaysNote of a built-in's request = %q, want empty", got)
	}
}
