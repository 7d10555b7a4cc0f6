package inbox_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/toolhost/toolhost/internal/third_party/gosdk/mcp"

	"github.com/toolhost/toolhost/internal/serve/inbox"
	"github.com/toolhost/toolhost/runtime/permission"
)

// TestAScriptAnswersThroughTheJSONAPI: an MCP client without elicitation
// calls bash under an "ask" rule; the request waits in the inbox with its
// command and the rule that asked (file and line); "once" lets the call
// finish with the command's output, and a reject with a message gives the
// model that message.
func TestAScriptAnswersThroughTheJSONAPI(t *testing.T) {
	t.Parallel()
	f := newFixture(t, fixtureOptions{})
	cs := f.client(t)

	done := callBash(cs, "echo inbox-said-yes")
	reqs := f.waitPending(t, 1)
	q := reqs[0]
	if q.Permission != "bash" || q.Preview.Kind != "command" || q.Preview.Text != "echo inbox-said-yes" {
		t.Errorf("pending request %+v, want bash with the command as preview", q)
	}
	if q.Rule == nil || q.Rule.Action != permission.Ask || !strings.Contains(q.Rule.Source, "toolhost.json:3") {
		t.Errorf("request's rule %v, want the ask rule at toolhost.json:3", q.Rule)
	}
	if !strings.HasPrefix(q.ID, "req_") || len(q.ID) != len("req_")+32 {
		t.Errorf("request id %q is not 128 random bits", q.ID)
	}
	if code, body := f.post(t, "/api/requests/"+q.ID+"/reply", map[string]string{"reply": "once"}); code != http.StatusOK {
		t.Fatalf("reply once: %d %s", code, body)
	}
	r := waitResult(t, done)
	if r.isError || !strings.Contains(r.text, "inbox-said-yes") {
		t.Errorf("call after once: %+v, want the command's output", r)
	}
	// The answered id is refused cleanly now.
	if code, body := f.post(t, "/api/requests/"+q.ID+"/reply", map[string]string{"reply": "once"}); code != http.StatusConflict {
		t.Errorf("second reply: %d %s, want 409", code, body)
	}

	done = callBash(cs, "echo never-run")
	q = f.waitPending(t, 1)[0]
	if code, body := f.post(t, "/api/requests/"+q.ID+"/reply", map[string]string{"reply": "reject", "message": "use ls instead"}); code != http.StatusOK {
		t.Fatalf("reply reject: %d %s", code, body)
	}
	r = waitResult(t, done)
	if !r.isError || !strings.Contains(r.text, "use ls instead") || strings.Contains(r.text, "never-run\n") {
		t.Errorf("call after reject: %+v, want an error carrying the message", r)
	}

	// The session lists both calls.
	var sessions struct{ Sessions []inbox.Session }
	f.getJSON(t, "/api/sessions", &sessions)
	if len(sessions.Sessions) != 1 || len(sessions.Sessions[0].Calls) != 2 {
		t.Fatalf("sessions %+v, want one with two calls", sessions.Sessions)
	}
	calls := sessions.Sessions[0].Calls
	if calls[0].Status != inbox.StatusDone || !strings.Contains(calls[0].Output, "inbox-said-yes") || calls[1].Status != inbox.StatusError {
		t.Errorf("calls %+v, want done with output, then error", calls)
	}
}

// TestAlwaysIsListedAndCanBeRevoked: "always" adds an approval to the
// session, shown with the session; revoking it makes the next call ask
// again.
func TestAlwaysIsListedAndCanBeRevoked(t *testing.T) {
	t.Parallel()
	f := newFixture(t, fixtureOptions{})
	cs := f.client(t)

	done := callBash(cs, "echo first")
	q := f.waitPending(t, 1)[0]
	if code, body := f.post(t, "/api/requests/"+q.ID+"/reply", map[string]string{"reply": "always"}); code != http.StatusOK {
		t.Fatalf("reply always: %d %s", code, body)
	}
	if r := waitResult(t, done); r.isError {
		t.Fatalf("call after always: %+v", r)
	}
	if r := waitResult(t, callBash(cs, "echo second")); r.isError || !strings.Contains(r.text, "second") {
		t.Fatalf("approved call: %+v, want it to run without asking", r)
	}
	var sessions struct{ Sessions []inbox.Session }
	f.getJSON(t, "/api/sessions", &sessions)
	s := sessions.Sessions[0]
	if len(s.Approvals) != 1 || s.Approvals[0].Permission != "bash" {
		t.Fatalf("approvals %v, want one for bash", s.Approvals)
	}
	path := "/api/sessions/" + s.ID + "/revoke"
	ap := map[string]string{"permission": s.Approvals[0].Permission, "pattern": s.Approvals[0].Pattern}
	if code, body := f.post(t, path, ap); code != http.StatusOK {
		t.Fatalf("revoke: %d %s", code, body)
	}
	if code, body := f.post(t, path, ap); code != http.StatusNotFound {
		t.Errorf("revoke again: %d %s, want 404", code, body)
	}
	done = callBash(cs, "echo third")
	q = f.waitPending(t, 1)[0]
	f.post(t, "/api/requests/"+q.ID+"/reply", map[string]string{"reply": "reject"})
	if r := waitResult(t, done); !r.isError {
		t.Errorf("call after revoke ran without asking: %+v", r)
	}
}

// TestRepliesThatCannotBeAcceptedAreRefusedCleanly is the attacker's and
// the careless script's table: every bad reply gets a 4xx with a reason,
// and the parked request stays parked.
func TestRepliesThatCannotBeAcceptedAreRefusedCleanly(t *testing.T) {
	t.Parallel()
	f := newFixture(t, fixtureOptions{})
	cs := f.client(t)
	done := callBash(cs, "echo still-waiting")
	id := f.waitPending(t, 1)[0].ID
	host := strings.TrimPrefix(f.url, "http://")

	tests := []struct {
		name        string
		method      string
		path        string
		contentType string
		body        string
		header      map[string]string
		want        int
		wantText    string
	}{
		{name: "an unknown id", path: "/api/requests/req_00000000000000000000000000000000/reply", body: `{"reply":"once"}`, want: 404, wantText: "no such permission request"},
		{name: "a guessed sequential id", path: "/api/requests/per_1/reply", body: `{"reply":"once"}`, want: 404},
		{name: "a form post (CSRF)", contentType: "application/x-www-form-urlencoded", body: `reply=once`, want: 415},
		{name: "a text/plain post (CSRF without preflight)", contentType: "text/plain", body: `{"reply":"once"}`, want: 415},
		{name: "no content type", contentType: "-", body: `{"reply":"once"}`, want: 415},
		{name: "a cross-site page", body: `{"reply":"once"}`, header: map[string]string{"Origin": "https://evil.example"}, want: 403},
		{name: "another loopback origin (a local dev server)", body: `{"reply":"once"}`, header: map[string]string{"Origin": "http://localhost:1"}, want: 403},
		{name: "a cross-site fetch by metadata", body: `{"reply":"once"}`, header: map[string]string{"Sec-Fetch-Site": "cross-site"}, want: 403},
		{name: "a rebound DNS name", body: `{"reply":"once"}`, header: map[string]string{"Host": "evil.example:" + strings.Split(host, ":")[1]}, want: 403},
		{name: "an unknown reply", body: `{"reply":"yes"}`, want: 400, wantText: "use once, always or reject"},
		{name: "an empty reply", body: `{}`, want: 400},
		{name: "a message with once", body: `{"reply":"once","message":"hi"}`, want: 400, wantText: "reject only"},
		{name: "an unknown field", body: `{"reply":"once","extra":1}`, want: 400},
		{name: "two JSON values", body: `{"reply":"reject"}{"reply":"once"}`, want: 400},
		{name: "not JSON", body: `once`, want: 400},
		{name: "a huge body", body: `{"reply":"reject","message":"` + strings.Repeat("x", 20000) + `"}`, want: 413},
		{name: "a message over the limit", body: `{"reply":"reject","message":"` + strings.Repeat("x", inbox.MaxMessage+1) + `"}`, want: 400, wantText: "shorten"},
		{name: "GET on the reply endpoint", method: "GET", want: 405},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			method := tt.method
			if method == "" {
				method = "POST"
			}
			path := tt.path
			if path == "" {
				path = "/api/requests/" + id + "/reply"
			}
			req, err := http.NewRequest(method, f.url+path, strings.NewReader(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			switch tt.contentType {
			case "":
				req.Header.Set("Content-Type", "application/json")
			case "-":
			default:
				req.Header.Set("Content-Type", tt.contentType)
			}
			for k, v := range tt.header {
				if k == "Host" {
					req.Host = v
				} else {
					req.Header.Set(k, v)
				}
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != tt.want || !strings.Contains(string(b), tt.wantText) {
				t.Errorf("%s %s: %d %s; want %d with %q", method, path, res.StatusCode, b, tt.want, tt.wantText)
			}
		})
	}
	if got := f.waitPending(t, 1); got[0].ID != id {
		t.Fatalf("after the bad replies the pending request is %v, want %s untouched", got, id)
	}
	f.post(t, "/api/requests/"+id+"/reply", map[string]string{"reply": "once"})
	if r := waitResult(t, done); r.isError {
		t.Errorf("the call after the bad replies: %+v", r)
	}
}

// TestTheEventStreamCarriesEveryChange: the stream starts with the state,
// and a new request arrives as a new event.
func TestTheEventStreamCarriesEveryChange(t *testing.T) {
	t.Parallel()
	f := newFixture(t, fixtureOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", f.url+"/api/events", nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if ct := res.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q", ct)
	}
	events := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				events <- d
			}
		}
		close(events)
	}()
	next := func() string {
		select {
		case e, ok := <-events:
			if !ok {
				t.Fatal("the event stream ended")
			}
			return e
		case <-time.After(patience):
			t.Fatal("no event")
		}
		return ""
	}
	if first := next(); !strings.Contains(first, `"requests":[]`) {
		t.Errorf("first event %s, want the empty state", first)
	}
	cs := f.client(t)
	done := callBash(cs, "echo streamed")
	for {
		if e := next(); strings.Contains(e, `"text":"echo streamed"`) {
			break
		}
	}
	q := f.waitPending(t, 1)[0]
	f.post(t, "/api/requests/"+q.ID+"/reply", map[string]string{"reply": "once"})
	waitResult(t, done)
}

// TestAnUnansweredRequestIsRefusedAtTheTimeout: nobody answers, and the
// model is told so, with the way to let such calls through.
func TestAnUnansweredRequestIsRefusedAtTheTimeout(t *testing.T) {
	t.Parallel()
	ib := inbox.New(inbox.Options{Timeout: time.Millisecond})
	_, err := ib.Ask(context.Background(), permission.Request{Permission: "bash", Patterns: []string{"rm x"}, Always: []string{"rm *"}})
	var u *permission.UnansweredError
	if !errors.As(err, &u) {
		t.Fatalf("err %v, want *permission.UnansweredError", err)
	}
	for _, want := range []string{"nobody answered it in the permission inbox within 1ms", "--inbox-timeout", `"permission": {"bash": {"rm *": "allow"}}`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q lacks %q", err, want)
		}
	}
	if len(ib.Pending()) != 0 {
		t.Error("the timed-out request is still pending")
	}
}

// TestACancelledCallLeavesTheInbox: the call's end takes its question
// away; a reply to it afterwards is refused as answered.
func TestACancelledCallLeavesTheInbox(t *testing.T) {
	t.Parallel()
	ib := inbox.New(inbox.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := ib.Ask(ctx, permission.Request{Permission: "bash", Patterns: []string{"ls"}})
		errc <- err
	}()
	var id string
	for deadline := time.Now().Add(patience); id == ""; {
		if p := ib.Pending(); len(p) == 1 {
			id = p[0].ID
		} else if time.Now().After(deadline) {
			t.Fatal("the request was never parked")
		}
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("Ask after cancel: %v, want context.Canceled", err)
	}
	if err := ib.Reply(id, permission.Reply{Kind: permission.Once}); !errors.Is(err, inbox.ErrAnswered) {
		t.Errorf("Reply to a cancelled request: %v, want ErrAnswered", err)
	}
}

// TestBeyondLoopbackTheTokenIsRequired: the token is required on every
// path when set; a browser signs in once with ?token= and then sends the
// cookie.
func TestBeyondLoopbackTheTokenIsRequired(t *testing.T) {
	t.Parallel()
	if err := inbox.CheckBind("0.0.0.0:8766", ""); err == nil || !strings.Contains(err.Error(), "--inbox-token") {
		t.Errorf("CheckBind beyond loopback without a token: %v", err)
	}
	if err := inbox.CheckBind("0.0.0.0:8766", "s3cret"); err != nil {
		t.Errorf("CheckBind with a token: %v", err)
	}
	if err := inbox.CheckBind("127.0.0.1:0", ""); err != nil {
		t.Errorf("CheckBind on loopback: %v", err)
	}
	f := newFixture(t, fixtureOptions{token: "s3cret"})
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	get := func(path string, h map[string]string) *http.Response {
		req, _ := http.NewRequest("GET", f.url+path, nil)
		for k, v := range h {
			req.Header.Set(k, v)
		}
		res, err := noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res
	}
	for _, path := range []string{"/", "/api/requests", "/api/sessions", "/static/app.js", "/?token=wrong"} {
		if res := get(path, nil); res.StatusCode != http.StatusUnauthorized {
			t.Errorf("GET %s without the token: %d, want 401", path, res.StatusCode)
		}
	}
	if res := get("/api/requests", map[string]string{"Authorization": "Bearer s3cret"}); res.StatusCode != http.StatusOK {
		t.Errorf("GET with the bearer token: %d", res.StatusCode)
	}
	res := get("/?token=s3cret", nil)
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/" {
		t.Fatalf("sign-in: %d to %q, want 303 to /", res.StatusCode, res.Header.Get("Location"))
	}
	cookies := res.Cookies()
	if len(cookies) != 1 || !cookies[0].HttpOnly || cookies[0].SameSite != http.SameSiteStrictMode {
		t.Fatalf("sign-in cookies %v, want one HttpOnly SameSite=Strict", cookies)
	}
	if res := get("/api/requests", map[string]string{"Cookie": cookies[0].Name + "=" + cookies[0].Value}); res.StatusCode != http.StatusOK {
		t.Errorf("GET with the cookie: %d", res.StatusCode)
	}
	if res := get("/api/requests", map[string]string{"Cookie": cookies[0].Name + "=guess"}); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("GET with a wrong cookie: %d", res.StatusCode)
	}
}

// TestThePageEscapesWhatTheModelChose: a command, patterns and a rule
// source full of markup reach the page as text, and the page forbids
// inline script besides.
func TestThePageEscapesWhatTheModelChose(t *testing.T) {
	t.Parallel()
	f := newFixture(t, fixtureOptions{})
	hostile := `<script>alert(1)</script>"><img src=x onerror=alert(2)>`
	go f.ib.Ask(t.Context(), permission.Request{
		SessionID: "ses_<b>x</b>", Tool: "bash", Permission: "bash",
		Patterns: []string{hostile}, Always: []string{`' onmouseover='alert(3)`},
		Metadata: map[string]any{"command": hostile},
		AskedBy:  &permission.Rule{Permission: "bash", Pattern: "*", Action: permission.Ask, Source: `</code><script>alert(4)</script>`},
	})
	f.waitPending(t, 1)
	for _, path := range []string{"/", "/fragments/requests"} {
		res, err := http.Get(f.url + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		page := string(b)
		for _, bad := range []string{"<script>alert", "<img src=x", "<b>x</b>", "' onmouseover='"} {
			if strings.Contains(page, bad) {
				t.Errorf("%s contains %q unescaped", path, bad)
			}
		}
		if !strings.Contains(page, "&lt;script&gt;alert(1)&lt;/script&gt;") {
			t.Errorf("%s does not show the command as text", path)
		}
		csp := res.Header.Get("Content-Security-Policy")
		if !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe-inline") || !strings.Contains(csp, "default-src 'none'") {
			t.Errorf("%s: Content-Security-Policy %q", path, csp)
		}
		if res.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: no nosniff", path)
		}
	}
	// The page has no inline script or style for the policy to allow.
	res, _ := http.Get(f.url + "/")
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	for _, inline := range []string{"<script>", "style=", "onclick", "<style"} {
		if strings.Contains(string(b), inline) {
			t.Errorf("the page has inline %q, which its policy forbids", inline)
		}
	}
	for _, path := range []string{"/static/", "/static/../page.html", "/static/page.html", "/page.html"} {
		res, err := http.Get(f.url + path)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode == http.StatusOK {
			t.Errorf("GET %s: 200, want nothing served", path)
		}
	}
}

// TestRulesNameTheirFileAndLine: the agent's effective rules, each with
// its source; an unknown agent is a 404 with the reason.
func TestRulesNameTheirFileAndLine(t *testing.T) {
	t.Parallel()
	f := newFixture(t, fixtureOptions{})
	var rules inbox.Rules
	f.getJSON(t, "/api/rules?agent=build", &rules)
	found := false
	for _, r := range rules.Rules {
		if r.Permission == "bash" && r.Action == permission.Ask && strings.HasSuffix(r.Source, "toolhost.json:3") {
			found = true
		}
	}
	if !found {
		t.Errorf("rules %v lack bash ask from toolhost.json:3", rules.Rules)
	}
	res, err := http.Get(f.url + "/api/rules?agent=" + fmt.Sprint("nosuch"))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusNotFound {
		t.Errorf("rules of an unknown agent: %d, want 404", res.StatusCode)
	}
}

// TestClosingRefusesWhatIsParked: when toolhost stops, a parked call is
// refused with a message saying why, rather than left waiting.
func TestClosingRefusesWhatIsParked(t *testing.T) {
	t.Parallel()
	ib := inbox.New(inbox.Options{})
	errc := make(chan error, 1)
	go func() {
		_, err := ib.Ask(context.Background(), permission.Request{Permission: "bash", Patterns: []string{"ls"}})
		errc <- err
	}()
	for deadline := time.Now().Add(patience); len(ib.Pending()) == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the request was never parked")
		}
	}
	ib.Close()
	var u *permission.UnansweredError
	if err := <-errc; !errors.As(err, &u) || !strings.Contains(err.Error(), "inbox closed") {
		t.Errorf("Ask after Close: %v, want an UnansweredError saying the inbox closed", err)
	}
	if _, err := ib.Ask(context.Background(), permission.Request{Permission: "bash"}); !errors.As(err, &u) {
		t.Errorf("Ask on a closed inbox: %v", err)
	}
	ib.Close()
}

// TestTheToolsOwnTimeLimitWaitsWithTheCall: bash's timeout counts the
// command's running time, not the time the call waited for a person.
func TestTheToolsOwnTimeLimitWaitsWithTheCall(t *testing.T) {
	t.Parallel()
	f := newFixture(t, fixtureOptions{})
	cs := f.client(t)
	done := make(chan result, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "bash", Arguments: map[string]any{"command": "echo in-time", "description": "quick", "timeout": 100}})
		if err != nil {
			done <- result{err: err}
			return
		}
		done <- result{text: res.Content[0].(*sdk.TextContent).Text, isError: res.IsError}
	}()
	q := f.waitPending(t, 1)[0]
	// Wait well past the command's 100 ms limit before answering.
	time.Sleep(500 * time.Millisecond)
	f.post(t, "/api/requests/"+q.ID+"/reply", map[string]string{"reply": "once"})
	r := waitResult(t, done)
	if r.isError || !strings.Contains(r.text, "in-time") || strings.Contains(r.text, "exceeding timeout") {
		t.Errorf("call answered after longer than its timeout: %+v, want it to run in full", r)
	}
}

// TestClientsOfBothProtocolsAreParked: a client without elicitation is
// parked in the inbox on the sessionless 2026-07-28 protocol as on the
// older one.
func TestClientsOfBothProtocolsAreParked(t *testing.T) {
	t.Parallel()
	for _, proto := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(proto, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, fixtureOptions{})
			done := callBash(f.clientSpeaking(t, proto), "echo "+proto)
			q := f.waitPending(t, 1)[0]
			f.post(t, "/api/requests/"+q.ID+"/reply", map[string]string{"reply": "once"})
			if r := waitResult(t, done); r.isError || !strings.Contains(r.text, proto) {
				t.Errorf("call after once: %+v", r)
			}
		})
	}
}

// TestAQuestionTheClientCancelsGoesToTheInbox: a client that declares
// elicitation but answers "cancel", as one with no one to show the
// question to does (Claude Code in print mode), leaves the question to the
// inbox; a decline is the person's no and is not asked again.
func TestAQuestionTheClientCancelsGoesToTheInbox(t *testing.T) {
	t.Parallel()
	for _, proto := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(proto, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, fixtureOptions{})
			action := "cancel"
			var mu sync.Mutex
			cs := f.clientWith(t, proto, &sdk.ClientOptions{ElicitationHandler: func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
				mu.Lock()
				defer mu.Unlock()
				return &sdk.ElicitResult{Action: action}, nil
			}})
			done := callBash(cs, "echo after-cancel")
			q := f.waitPending(t, 1)[0]
			f.post(t, "/api/requests/"+q.ID+"/reply", map[string]string{"reply": "once"})
			if r := waitResult(t, done); r.isError || !strings.Contains(r.text, "after-cancel") {
				t.Errorf("call answered in the inbox after the client's cancel: %+v", r)
			}

			mu.Lock()
			action = "decline"
			mu.Unlock()
			r := waitResult(t, callBash(cs, "echo declined"))
			if !r.isError || !strings.Contains(r.text, "rejected") {
				t.Errorf("a declined call: %+v, want the rejection", r)
			}
			if n := len(f.ib.Pending()); n != 0 {
				t.Errorf("%d requests in the inbox after a decline, want none", n)
			}
		})
	}
}
