package inbox

import (
	"html/template"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/internal/confine/trust"
	"github.com/toolhost/toolhost/runtime/permission"
)

// The page was three html/template templates (kept in testdata/templates
// as they were); render.go writes it in plain Go. These tests render both,
// html/template being fine in a test, and require the same bytes for
// pages that use every branch, with values that need escaping.

// nasty is what a model or a project can put on the page.
const nasty = `<script>alert("x")</script> & 'a' + b` + "\x00 “é” {{.ID}}"

func oldTemplates(t *testing.T) *template.Template {
	t.Helper()
	return template.Must(template.New("").Funcs(template.FuncMap{
		"ms": func(ms int64) string { return (time.Duration(ms) * time.Millisecond).Round(time.Millisecond).String() },
	}).ParseGlob("testdata/templates/*.html"))
}

func renderCases() map[string]pageData {
	deadline := time.Date(2026, 11, 28, 10, 4, 5, 0, time.FixedZone("CET", 3600))
	full := Request{
		ID: "r1" + nasty, SessionID: "ses" + nasty, Tool: "jira", Permission: "bash",
		Patterns: []string{"git push" + nasty, "ls"}, Always: []string{"git *", nasty},
		Preview: Preview{Kind: "command", Text: "rm -rf /\n" + nasty},
		Rule:    &permission.Rule{Permission: "bash", Pattern: "*" + nasty, Action: permission.Ask, Source: "opencode.json:3" + nasty},
		Scope:   permission.Scope{Tool: "jira" + nasty, Source: "wasm", File: "/t/jira.wasm"}, ScopeNote: "jira asks" + nasty,
		Deadline: deadline,
	}
	plain := Request{ID: "r2", SessionID: "s", Tool: "edit", Permission: "edit", Patterns: []string{"a.go"}, Deadline: deadline,
		Rule: &permission.Rule{Permission: "edit", Pattern: "*", Action: permission.Ask}}
	bare := Request{ID: "r3", Permission: "read", Deadline: deadline}
	sessions := []Session{
		{ID: "ses_1" + nasty, Agent: "build" + nasty, ApprovalsError: "store" + nasty, Calls: []Call{
			{Tool: "bash", Title: "t" + nasty, Status: "completed", DurationMS: 1534, Output: "out\n" + nasty},
			{Tool: "read", Status: "running", DurationMS: 0},
		}, Approvals: permission.Ruleset{
			{Permission: "bash", Pattern: "git *" + nasty, Action: permission.Allow},
			{Permission: "edit", Pattern: "*", Action: permission.Allow, Scope: permission.Scope{Tool: "jira", Source: "wasm", File: "/x/jira" + nasty}},
		}},
		{ID: "ses_2", Calls: []Call{{Tool: "glob", Status: "error", DurationMS: 61_000}}},
		{ID: "ses_3"},
	}
	rules := Rules{Agent: "plan" + nasty, Agents: []string{"build", "plan" + nasty}, Rules: permission.Ruleset{
		{Permission: "*", Pattern: "*", Action: permission.Allow, Source: "default"},
		{Permission: "bash" + nasty, Pattern: "rm *" + nasty, Action: permission.Deny, Source: "opencode.json:7" + nasty},
	}}
	untrusted := &trustBanner{Review: trust.Review{
		Project: "/p" + nasty, Digest: "sha256:ab" + nasty, Problem: "too large" + nasty,
		Summary: trust.Summary{Run: []string{"mcp server" + nasty}, Grant: []string{"net"}, Loosen: []string{"bash allow", "edit ask"}, Tools: []string{"t.wasm"}, Settings: []string{"model"}},
		Files:   []trust.Entry{{Rel: "opencode.json", Kind: "file"}, {Rel: "tool/x" + nasty, Kind: "link-out", Link: "/etc" + nasty}},
	}}
	return map[string]pageData{
		"nothing yet":               {TimeoutLabel: "10m0s"},
		"every branch":              {Requests: []Request{full, plain, bare}, Sessions: sessions, Rules: rules, RulesError: "broken" + nasty, TimeoutLabel: "1m30s" + nasty, Trust: untrusted},
		"trusted since start":       {Requests: []Request{plain}, Rules: rules, TimeoutLabel: "10m0s", Trust: &trustBanner{Review: trust.Review{Project: "/p" + nasty}, Restart: true}},
		"untrusted, nothing listed": {Sessions: sessions[1:], TimeoutLabel: "10m0s", Trust: &trustBanner{Review: trust.Review{Project: "/p"}}},
		"some summary lists":        {TimeoutLabel: "10m0s", Trust: &trustBanner{Review: trust.Review{Project: "/p", Summary: trust.Summary{Grant: []string{"g"}, Settings: []string{"s"}}}}},
	}
}

func TestThePageIsWhatItsTemplatesWrote(t *testing.T) {
	t.Parallel()
	tmpl := oldTemplates(t)
	for name, d := range renderCases() {
		for view := range views {
			var want strings.Builder
			if err := tmpl.ExecuteTemplate(&want, view, d); err != nil {
				t.Fatalf("%s, %s: %v", name, view, err)
			}
			var got page
			views[view](&got, d)
			if got.String() != want.String() {
				t.Errorf("%s, %s differs from its template's at byte %d:\n got …%q\nwant …%q", name, view, firstDiff(got.String(), want.String()),
					around(got.String(), firstDiff(got.String(), want.String())), around(want.String(), firstDiff(got.String(), want.String())))
			}
			if strings.Contains(got.String(), "<script>alert") || strings.Contains(got.String(), "\x00") {
				t.Errorf("%s, %s: a value reached the page unescaped", name, view)
			}
		}
	}
}

func firstDiff(a, b string) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return i
}

func around(s string, i int) string {
	return s[max(0, i-60):min(len(s), i+60)]
}
