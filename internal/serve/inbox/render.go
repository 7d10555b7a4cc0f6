package inbox

import (
	"strconv"
	"strings"
	"time"

	"github.com/toolhost/toolhost/internal/confine/trust"
)

// The page and its two fragments, written by plain Go rather than
// html/template: executing a template may call any method by name, which
// keeps 5 MB of otherwise dead methods in the binary (internal/content/textfill
// says more). Every value is written through page.text, which escapes as
// html/template does in text and quoted attributes (the only places a
// value goes here: no value is written into a URL, script, style or an
// unquoted attribute). The output is byte for byte what the templates
// wrote; render_test.go renders them beside it.

// page builds one response.
type page struct{ strings.Builder }

// htmlEscaper is html/template's escaping of text and quoted attribute
// values: markup, quotes, '+' (a UTF-7 relic) and NUL.
var htmlEscaper = strings.NewReplacer("\x00", "\uFFFD", `"`, "&#34;", "&", "&amp;", "'", "&#39;", "+", "&#43;", "<", "&lt;", ">", "&gt;")

// raw writes markup as it is.
func (p *page) raw(ss ...string) {
	for _, s := range ss {
		p.WriteString(s)
	}
}

// text writes a value, escaped.
func (p *page) text(s string) { _, _ = htmlEscaper.WriteString(&p.Builder, s) }

// views are what render can write, by the names the handlers use.
var views = map[string]func(*page, pageData){
	"page.html":     (*page).page,
	"requests.html": (*page).requests,
	"sessions.html": (*page).sessions,
}

func (p *page) page(d pageData) {
	p.raw(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>toolhost — permission inbox</title>
<link rel="stylesheet" href="/static/style.css">
<script src="/static/app.js" defer></script>
</head>
<body>
<header>
  <h1>toolhost permission inbox</h1>
  <button type="button" id="notify" hidden>Notify me of new requests</button>
  <p id="status" role="status" aria-live="polite"></p>
</header>
<main>
`)
	if d.Trust != nil {
		p.trust(d.Trust)
	}
	p.raw(`
<section aria-labelledby="requests-title">
  <h2 id="requests-title">Waiting for you</h2>
  <p class="hint">A call waits here until you answer, for at most `)
	p.text(d.TimeoutLabel)
	p.raw(`; then it is refused.</p>
  <div id="requests">`)
	p.requests(d)
	p.raw(`</div>
</section>
<section aria-labelledby="sessions-title">
  <h2 id="sessions-title">Sessions</h2>
  <div id="sessions">`)
	p.sessions(d)
	p.raw(`</div>
</section>
<section aria-labelledby="rules-title">
  <h2 id="rules-title">Rules of agent `)
	p.text(d.Rules.Agent)
	p.raw(`</h2>
  <form method="get" action="/" class="agent-form">
    <label for="agent">Agent</label>
    <select id="agent" name="agent">
      `)
	for _, a := range d.Rules.Agents {
		p.raw(`<option value="`)
		p.text(a)
		p.raw(`"`)
		if a == d.Rules.Agent {
			p.raw(` selected`)
		}
		p.raw(`>`)
		p.text(a)
		p.raw(`</option>`)
	}
	p.raw(`
    </select>
    <button type="submit">Show rules</button>
  </form>
  `)
	if d.RulesError != "" {
		p.raw(`<p class="error">`)
		p.text(d.RulesError)
		p.raw(`</p>`)
	}
	p.raw(`
  <p class="hint">Later rules win. The source names the file and line each rule comes from.</p>
  <table class="rules">
    <thead><tr><th scope="col">#</th><th scope="col">Permission</th><th scope="col">Pattern</th><th scope="col">Action</th><th scope="col">Source</th></tr></thead>
    <tbody>
    `)
	for i, r := range d.Rules.Rules {
		p.raw(`<tr><td>`, strconv.Itoa(i), `</td><td><code>`)
		p.text(r.Permission)
		p.raw(`</code></td><td><code>`)
		p.text(r.Pattern)
		p.raw(`</code></td><td class="action-`)
		p.text(string(r.Action))
		p.raw(`">`)
		p.text(string(r.Action))
		p.raw(`</td><td>`)
		p.text(r.Source)
		p.raw(`</td></tr>
    `)
	}
	p.raw(`
    </tbody>
  </table>
</section>
</main>
</body>
</html>
`)
}

// trust is the banner of a project not trusted, or trusted since start.
func (p *page) trust(t *trustBanner) {
	p.raw(`<section aria-labelledby="trust-title" class="trust-banner" id="trust">
  `)
	if t.Restart {
		p.raw(`
  <h2 id="trust-title">Project trusted</h2>
  <p>Project <code>`)
		p.text(t.Project)
		p.raw(`</code> is trusted now. This toolhost started before that and still runs on your own config alone: restart it (or the MCP client that starts it) for the project's config and tools to take effect.</p>
  `)
	} else {
		p.raw(`
  <h2 id="trust-title">This project is not trusted</h2>
  <p>Project <code>`)
		p.text(t.Project)
		p.raw(`</code> brings its own toolhost config or tools. Until you trust them, toolhost runs on your own config: only the project's deny rules apply, its servers do not start and its tools are not loaded. The same review is <code>toolhost trust</code> in a terminal.</p>
  `)
		if t.Problem != "" {
			p.raw(`<p class="error">`)
			p.text(t.Problem)
			p.raw(`</p>`)
		}
		p.raw(`
  
  `)
		p.summary(t.Summary)
		p.raw(`
  <details><summary>Files (`, strconv.Itoa(len(t.Files)), `), digest <code>`)
		p.text(t.Digest)
		p.raw(`</code></summary><ul>`)
		for _, f := range t.Files {
			p.entry(f)
		}
		p.raw(`</ul></details>
  `)
		if t.Digest != "" {
			p.raw(`<button type="button" data-trust="`)
			p.text(t.Digest)
			p.raw(`">Trust this content</button>`)
		}
		p.raw(`
  `)
	}
	p.raw(`
</section>`)
}

// summary lists what trusting would let the project do.
func (p *page) summary(s trust.Summary) {
	for i, l := range []struct {
		title string
		items []string
	}{
		{"Would run", s.Run},
		{"Would grant", s.Grant},
		{"Would loosen these rules", s.Loosen},
		{"Would load these tool and plugin files", s.Tools},
		{"Would also set", s.Settings},
	} {
		if len(l.items) > 0 {
			p.raw(`<h3>`, l.title, `</h3><ul>`)
			for _, it := range l.items {
				p.raw(`<li><code>`)
				p.text(it)
				p.raw(`</code></li>`)
			}
			p.raw(`</ul>`)
		}
		if i < 4 {
			p.raw(`
  `)
		}
	}
	p.raw(`
  `)
}

func (p *page) entry(f trust.Entry) {
	p.raw(`<li><code>`)
	p.text(f.Rel)
	p.raw(`</code> `)
	p.text(f.Kind)
	if f.Link != "" {
		p.raw(` → <code>`)
		p.text(f.Link)
		p.raw(`</code>`)
	}
	p.raw(`</li>`)
}

// requests is the questions waiting (the fragment the script reloads).
func (p *page) requests(d pageData) {
	for _, r := range d.Requests {
		p.request(r)
	}
	if len(d.Requests) == 0 {
		p.raw(`<p class="empty">Nothing is waiting for an answer.</p>
`)
	}
	p.raw("\n")
}

func (p *page) request(r Request) {
	p.raw(`<article class="request" data-id="`)
	p.text(r.ID)
	p.raw(`" aria-labelledby="t-`)
	p.text(r.ID)
	p.raw(`">
  <h3 id="t-`)
	p.text(r.ID)
	p.raw(`"><span class="perm">`)
	p.text(r.Permission)
	p.raw(`</span>`)
	if r.Tool != "" && r.Tool != r.Permission {
		p.raw(` <span class="tool">via `)
		p.text(r.Tool)
		p.raw(`</span>`)
	}
	p.raw(`</h3>
  <dl>
    <dt>Patterns</dt><dd>`)
	p.codes(r.Patterns)
	p.raw(`</dd>
    `)
	if len(r.Always) > 0 {
		p.raw(`<dt>“Always” allows</dt><dd>`)
		p.codes(r.Always)
		p.raw(` for the rest of the session`)
		if r.ScopeNote != "" {
			p.raw(`, to <span class="scope">`)
			p.text(r.Scope.Tool)
			p.raw(`</span> only`)
		}
		p.raw(`</dd>`)
	}
	p.raw(`
    `)
	if r.ScopeNote != "" {
		p.raw(`<dt>Asked by</dt><dd class="scope-note">`)
		p.text(r.ScopeNote)
		p.raw(`</dd>`)
	}
	p.raw(`
    `)
	if rule := r.Rule; rule != nil {
		p.raw(`<dt>Asked because of</dt><dd><code>`)
		p.text(rule.Permission)
		p.raw(` “`)
		p.text(rule.Pattern)
		p.raw(`”: `)
		p.text(string(rule.Action))
		p.raw(`</code>`)
		if rule.Source != "" {
			p.raw(` in <span class="source">`)
			p.text(rule.Source)
			p.raw(`</span>`)
		}
		p.raw(`</dd>`)
	}
	p.raw(`
    <dt>Session</dt><dd><code>`)
	p.text(r.SessionID)
	p.raw(`</code></dd>
    <dt>Refused at</dt><dd><time datetime="`)
	p.text(r.Deadline.Format(time.RFC3339))
	p.raw(`">`)
	p.text(r.Deadline.Format(time.TimeOnly))
	p.raw(`</time> if nobody answers</dd>
  </dl>
  `)
	if r.Preview.Text != "" {
		p.raw(`<pre class="preview preview-`)
		p.text(r.Preview.Kind)
		p.raw(`" aria-label="`)
		p.text(r.Preview.Kind)
		p.raw(`">`)
		p.text(r.Preview.Text)
		p.raw(`</pre>`)
	}
	p.raw(`
  <div class="actions">
    <button type="button" data-reply="once">Allow once</button>
    <button type="button" data-reply="always">Always allow</button>
    <button type="button" data-reply="reject" class="danger">Reject</button>
  </div>
  <div class="reject-message">
    <label for="m-`)
	p.text(r.ID)
	p.raw(`">Message to the agent</label>
    <input type="text" id="m-`)
	p.text(r.ID)
	p.raw(`" data-message maxlength="4000" placeholder="what to do instead">
    <button type="button" data-reply="reject-message" class="danger">Reject with message</button>
  </div>
</article>
`)
}

// codes writes each pattern as code, a space after each.
func (p *page) codes(ss []string) {
	for _, s := range ss {
		p.raw(`<code>`)
		p.text(s)
		p.raw(`</code> `)
	}
}

// sessions is each session's calls and approvals (the other fragment).
func (p *page) sessions(d pageData) {
	for _, s := range d.Sessions {
		p.session(s)
	}
	if len(d.Sessions) == 0 {
		p.raw(`<p class="empty">No tool calls yet.</p>
`)
	}
	p.raw("\n")
}

func (p *page) session(s Session) {
	p.raw(`<details class="session" open>
  <summary><code>`)
	p.text(s.ID)
	p.raw(`</code>`)
	if s.Agent != "" {
		p.raw(` — agent `)
		p.text(s.Agent)
	}
	p.raw(`, `, strconv.Itoa(len(s.Calls)), ` call`)
	if len(s.Calls) != 1 {
		p.raw(`s`)
	}
	p.raw(`</summary>
  <table class="calls">
    <thead><tr><th scope="col">Tool</th><th scope="col">Title</th><th scope="col">Status</th><th scope="col">Duration</th><th scope="col">Output</th></tr></thead>
    <tbody>
    `)
	for _, c := range s.Calls {
		p.raw(`<tr><td><code>`)
		p.text(c.Tool)
		p.raw(`</code></td><td>`)
		p.text(c.Title)
		p.raw(`</td><td class="status-`)
		p.text(c.Status)
		p.raw(`">`)
		p.text(c.Status)
		p.raw(`</td><td>`)
		p.text((time.Duration(c.DurationMS) * time.Millisecond).Round(time.Millisecond).String())
		p.raw(`</td><td><pre class="out">`)
		p.text(c.Output)
		p.raw(`</pre></td></tr>
    `)
	}
	p.raw(`
    </tbody>
  </table>
  <h3 class="approvals-title">“Always” approvals</h3>
  `)
	if s.ApprovalsError != "" {
		p.raw(`<p class="error">`)
		p.text(s.ApprovalsError)
		p.raw(`</p>`)
	}
	p.raw(`
  `)
	if len(s.Approvals) == 0 {
		p.raw(`<p class="empty">None.</p>`)
	} else {
		p.raw(`<ul class="approvals">
    `)
		for _, a := range s.Approvals {
			p.raw(`<li><code>`)
			p.text(a.Permission)
			p.raw(` “`)
			p.text(a.Pattern)
			p.raw(`”</code>`)
			if !a.Scope.IsZero() {
				p.raw(` <span class="scope">for `)
				p.text(a.Scope.String())
				p.raw(` only</span>`)
			}
			p.raw(` <button type="button" data-revoke data-session="`)
			p.text(s.ID)
			p.raw(`" data-permission="`)
			p.text(a.Permission)
			p.raw(`" data-pattern="`)
			p.text(a.Pattern)
			p.raw(`" aria-label="Revoke `)
			p.text(a.Permission)
			p.raw(` `)
			p.text(a.Pattern)
			p.raw(`">Revoke</button></li>
    `)
		}
		p.raw(`</ul>`)
	}
	p.raw(`
</details>
`)
}
