package permission

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/runtime/session"
)

// blockingAsker hands every question to the test through asked and blocks
// until the test replies on the call's channel or the call is cancelled.
type blockingAsker struct{ asked chan *askCall }

type askCall struct {
	ctx   context.Context
	req   Request
	reply chan Reply
}

func newBlockingAsker() *blockingAsker { return &blockingAsker{asked: make(chan *askCall, 16)} }

func (a *blockingAsker) Ask(ctx context.Context, req Request) (Reply, error) {
	c := &askCall{ctx: ctx, req: req, reply: make(chan Reply, 1)}
	a.asked <- c
	select {
	case r := <-c.reply:
		return r, nil
	case <-ctx.Done():
		return Reply{}, ctx.Err()
	}
}

// failAsker fails the test if anyone is asked.
func failAsker(t *testing.T) Asker {
	return AskerFunc(func(context.Context, Request) (Reply, error) {
		t.Error("the asker was called, but the rules should have decided")
		return Reply{Kind: Reject}, nil
	})
}

// start runs Ask in a goroutine, waits until the asker has the question, and
// returns the question and the channel Ask's result arrives on.
func start(t *testing.T, svc *Service, a *blockingAsker, rules Ruleset, req Request) (*askCall, <-chan error) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- svc.Ask(t.Context(), rules, req) }()
	select {
	case c := <-a.asked:
		return c, done
	case err := <-done:
		t.Fatalf("Ask(%v) returned %v before asking", req, err)
		return nil, nil
	}
}

func bashRequest(session string, patterns, always []string) Request {
	return Request{SessionID: session, Permission: "bash", Patterns: patterns, Always: always}
}

// askAll is the rule set under which every bash command is asked about.
var askAll = Ruleset{{Permission: "*", Pattern: "*", Action: Allow, Source: "default"}, {Permission: "bash", Pattern: "*", Action: Ask, Source: "test"}}

func pendingIDs(svc *Service) []string {
	var ids []string
	for _, r := range svc.Pending() {
		ids = append(ids, r.ID)
	}
	return ids
}

func openStore(t *testing.T, path string) *session.Bolt {
	t.Helper()
	st, err := session.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestServiceDecidesFromRulesWithoutAsking(t *testing.T) {
	t.Parallel()
	rules := Ruleset{
		{Permission: "*", Pattern: "*", Action: Allow, Source: "default"},
		{Permission: "bash", Pattern: "rm *", Action: Deny, Source: "toolhost.json:3"},
	}
	tests := []struct {
		name     string
		req      Request
		wantKind Outcome
		wantMsg  []string
	}{
		{"an allowed command passes", bashRequest("s", []string{"ls -la"}, nil), "", nil},
		{"a denied command is refused quoting the deciding rule", bashRequest("s", []string{"ls", "rm -rf /"}, nil), "denied", []string{`"rm -rf /"`, `bash "rm *": deny (toolhost.json:3)`}},
		{"a request without patterns is judged as the pattern star", Request{SessionID: "s", Permission: "bash"}, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			svc := NewService(nil, failAsker(t), nil)
			err := svc.Ask(t.Context(), rules, tt.req)
			if got := Kind(err); got != tt.wantKind {
				t.Fatalf("Ask error %v has kind %q, want %q", err, got, tt.wantKind)
			}
			for _, m := range tt.wantMsg {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("error %q does not mention %s", err, m)
				}
			}
			var d *DeniedError
			if errors.As(err, &d) {
				want := Ruleset{rules[0], rules[1]}
				if !slices.Equal(d.Rules, want) {
					t.Errorf("DeniedError.Rules = %v, want every matching rule, deciding one last: %v", d.Rules, want)
				}
			}
		})
	}
}

func TestServiceDeniesAPatternlessRequestWhenThePermissionIsDenied(t *testing.T) {
	t.Parallel()
	svc := NewService(nil, failAsker(t), nil)
	err := svc.Ask(t.Context(), Ruleset{{Permission: "webfetch", Pattern: "*", Action: Deny}}, Request{SessionID: "s", Permission: "webfetch"})
	if Kind(err) != "denied" {
		t.Fatalf("Ask = %v, want denied", err)
	}
}

func TestServiceWithoutAskerRefusesAndSaysHowToAllow(t *testing.T) {
	t.Parallel()
	svc := NewService(nil, nil, nil)
	err := svc.Ask(t.Context(), askAll, bashRequest("s", []string{"git status"}, []string{"git *"}))
	if Kind(err) != "denied" {
		t.Fatalf("Ask = %v, want a denial", err)
	}
	for _, want := range []string{"no one can answer permission requests here", `"permission": {"bash": {"git *": "allow"}}`, "--yes"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
}

func TestServiceOnceAllowsOnlyThisCall(t *testing.T) {
	t.Parallel()
	a := newBlockingAsker()
	svc := NewService(nil, a, nil)
	call, done := start(t, svc, a, askAll, bashRequest("s", []string{"make"}, []string{"make *"}))
	if !strings.HasPrefix(call.req.ID, "per_") {
		t.Errorf("request id %q was not assigned", call.req.ID)
	}
	call.reply <- Reply{Kind: Once}
	if err := <-done; err != nil {
		t.Fatalf("Ask after once = %v, want nil", err)
	}
	if got, _ := svc.Approved(t.Context(), "s"); len(got) != 0 {
		t.Errorf("once approved %v for the session", got)
	}
	// The next identical call is asked again.
	call, done = start(t, svc, a, askAll, bashRequest("s", []string{"make"}, []string{"make *"}))
	call.reply <- Reply{Kind: Once}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestServiceAlwaysApprovesForTheSessionOnly(t *testing.T) {
	t.Parallel()
	for _, withStore := range []bool{false, true} {
		name := "with approvals in memory"
		if withStore {
			name = "with approvals in the session store"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var st session.Store = session.NewMemory()
			if withStore {
				st = openStore(t, filepath.Join(t.TempDir(), "sessions.db"))
			}
			a := newBlockingAsker()
			svc := NewService(st, a, nil)

			first, firstDone := start(t, svc, a, askAll, bashRequest("s1", []string{"git status"}, []string{"git *"}))
			partly, partlyDone := start(t, svc, a, askAll, bashRequest("s1", []string{"git log", "ls"}, []string{"git *"}))
			uncovered, uncoveredDone := start(t, svc, a, askAll, bashRequest("s1", []string{"rm x"}, []string{"rm *"}))
			other, otherDone := start(t, svc, a, askAll, bashRequest("s2", []string{"git diff"}, []string{"git *"}))
			if got := len(svc.Pending()); got != 4 {
				t.Fatalf("%d pending requests, want 4", got)
			}

			first.reply <- Reply{Kind: Always}
			if err := <-firstDone; err != nil {
				t.Fatalf("Ask answered always = %v, want nil", err)
			}
			// Only fully allowed requests settle: "ls" in the partly covered
			// one is still asked, "rm x" is not covered, and s2 is another
			// session, so all three stay pending.
			if want := []string{partly.req.ID, uncovered.req.ID, other.req.ID}; !slices.Equal(pendingIDs(svc), want) {
				t.Fatalf("pending %v, want %v", pendingIDs(svc), want)
			}

			approved, err := svc.Approved(t.Context(), "s1")
			if err != nil {
				t.Fatal(err)
			}
			want := Ruleset{{Permission: "bash", Pattern: "git *", Action: Allow, Source: ApprovalSource}}
			if !slices.Equal(approved, want) {
				t.Errorf("approved %v, want %v", approved, want)
			}
			if got, _ := svc.Approved(t.Context(), "s2"); len(got) != 0 {
				t.Errorf("session s2 got approvals %v from s1", got)
			}
			// Later calls in the session are allowed without asking.
			if err := svc.Ask(t.Context(), askAll, bashRequest("s1", []string{"git push"}, nil)); err != nil {
				t.Errorf("approved command asked again: %v", err)
			}

			for _, c := range []*askCall{partly, uncovered, other} {
				c.reply <- Reply{Kind: Once}
			}
			for _, ch := range []<-chan error{partlyDone, uncoveredDone, otherDone} {
				if err := <-ch; err != nil {
					t.Errorf("Ask answered once = %v", err)
				}
			}
		})
	}
}

func TestServiceAlwaysSettlesSameSessionRequestsThatAreNowAllowed(t *testing.T) {
	t.Parallel()
	a := newBlockingAsker()
	svc := NewService(nil, a, nil)
	// "ls" is allowed by the rules, "git log" is asked: once git * is
	// approved, the whole request is allowed.
	rules := append(slices.Clone(askAll), Rule{Permission: "bash", Pattern: "ls", Action: Allow})

	first, firstDone := start(t, svc, a, rules, bashRequest("s1", []string{"git status"}, []string{"git *"}))
	sibling, siblingDone := start(t, svc, a, rules, bashRequest("s1", []string{"ls", "git log"}, nil))
	stranger, strangerDone := start(t, svc, a, rules, bashRequest("s2", []string{"git log"}, nil))

	first.reply <- Reply{Kind: Always}
	if err := <-firstDone; err != nil {
		t.Fatal(err)
	}
	// Settling happens before the answered Ask returns, so checking the
	// pending list first fails fast instead of blocking below.
	if got := pendingIDs(svc); !slices.Equal(got, []string{stranger.req.ID}) {
		t.Fatalf("pending %v, want only the other session's request %s", got, stranger.req.ID)
	}
	if err := <-siblingDone; err != nil {
		t.Errorf("same-session request now allowed returned %v, want nil", err)
	}
	<-sibling.ctx.Done() // its question was withdrawn
	if err := stranger.ctx.Err(); err != nil {
		t.Errorf("the other session's question was withdrawn: %v", err)
	}
	stranger.reply <- Reply{Kind: Once}
	if err := <-strangerDone; err != nil {
		t.Fatal(err)
	}
}

func TestServiceRejectFailsTheSessionsOtherRequests(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		reply    Reply
		wantKind Outcome
	}{
		{"a bare reject is a rejection", Reply{Kind: Reject}, "rejected"},
		{"a reject with a message is a correction", Reply{Kind: Reject, Message: "use make test instead"}, "corrected"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a := newBlockingAsker()
			svc := NewService(nil, a, nil)
			first, firstDone := start(t, svc, a, askAll, bashRequest("s1", []string{"go test ./..."}, nil))
			sibling, siblingDone := start(t, svc, a, askAll, bashRequest("s1", []string{"ls"}, nil))
			stranger, strangerDone := start(t, svc, a, askAll, bashRequest("s2", []string{"ls"}, nil))

			first.reply <- tt.reply
			err := <-firstDone
			if Kind(err) != tt.wantKind {
				t.Fatalf("Ask = %v (kind %q), want kind %q", err, Kind(err), tt.wantKind)
			}
			var c *CorrectedError
			if errors.As(err, &c) && c.Message != tt.reply.Message {
				t.Errorf("correction message %q, want %q", c.Message, tt.reply.Message)
			}
			if got := pendingIDs(svc); !slices.Equal(got, []string{stranger.req.ID}) {
				t.Fatalf("pending %v, want only the other session's %s", got, stranger.req.ID)
			}
			if err := <-siblingDone; Kind(err) != "rejected" {
				t.Errorf("same-session request returned %v, want a rejection", err)
			}
			<-sibling.ctx.Done()
			stranger.reply <- Reply{Kind: Once}
			if err := <-strangerDone; err != nil {
				t.Errorf("other session's request = %v, want nil", err)
			}
		})
	}
}

func TestServiceApprovalsAreSharedThroughTheStore(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "sessions.db")
	a := newBlockingAsker()
	first := NewService(openStore(t, path), a, nil)
	call, done := start(t, first, a, askAll, bashRequest("shared", []string{"npm test"}, []string{"npm *"}))
	call.reply <- Reply{Kind: Always}
	if err := <-done; err != nil {
		t.Fatal(err)
	}

	// A second Service, as another process would have, with no one to ask:
	// the approval lets the call through, and only in the same session.
	second := NewService(openStore(t, path), nil, nil)
	if err := second.Ask(t.Context(), askAll, bashRequest("shared", []string{"npm run build"}, nil)); err != nil {
		t.Errorf("approved command in the same session = %v, want nil", err)
	}
	if err := second.Ask(t.Context(), askAll, bashRequest("elsewhere", []string{"npm run build"}, nil)); Kind(err) != "denied" {
		t.Errorf("approved command in another session = %v, want it refused", err)
	}
	// Approving the same pattern again does not duplicate the rule.
	call, done = start(t, first, a, askAll, bashRequest("shared", []string{"npx jest"}, []string{"npm *", "npx *"}))
	call.reply <- Reply{Kind: Always}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	got, err := second.Approved(t.Context(), "shared")
	if err != nil {
		t.Fatal(err)
	}
	want := Ruleset{
		{Permission: "bash", Pattern: "npm *", Action: Allow, Source: ApprovalSource},
		{Permission: "bash", Pattern: "npx *", Action: Allow, Source: ApprovalSource},
	}
	if !slices.Equal(got, want) {
		t.Errorf("approvals %v, want %v", got, want)
	}
}

func TestServiceCancelledWhileWaiting(t *testing.T) {
	t.Parallel()
	a := newBlockingAsker()
	svc := NewService(nil, a, nil)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- svc.Ask(ctx, askAll, bashRequest("s", []string{"sleep 100"}, nil)) }()
	call := <-a.asked
	cancel()
	err := <-done
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Ask after cancel = %v, want context.Canceled", err)
	}
	if IsPermissionError(err) {
		t.Errorf("a cancellation %v is reported as a permission error", err)
	}
	<-call.ctx.Done()
	if n := len(svc.Pending()); n != 0 {
		t.Errorf("%d requests still pending after cancellation", n)
	}
}

func TestServiceReplyAnswersAPendingRequestFromOutside(t *testing.T) {
	t.Parallel()
	a := newBlockingAsker()
	svc := NewService(nil, a, nil)
	call, done := start(t, svc, a, askAll, bashRequest("s", []string{"make"}, nil))
	if err := svc.Reply(t.Context(), "per_nope", Reply{Kind: Once}); err == nil {
		t.Error("Reply to an unknown request succeeded")
	}
	if err := svc.Reply(t.Context(), call.req.ID, Reply{Kind: "maybe"}); err == nil {
		t.Error("Reply with an unknown kind succeeded")
	}
	if err := svc.Reply(t.Context(), call.req.ID, Reply{Kind: Once}); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Errorf("Ask answered by Reply = %v, want nil", err)
	}
	<-call.ctx.Done()
}

func TestServiceAskerFailures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		asker AskerFunc
		want  string
	}{
		{"an asker error is returned with context", func(context.Context, Request) (Reply, error) {
			return Reply{}, errors.New("terminal closed")
		}, "ask permission bash: terminal closed"},
		{"an unknown reply is an error", func(context.Context, Request) (Reply, error) {
			return Reply{Kind: "maybe"}, nil
		}, `unknown reply "maybe"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			svc := NewService(nil, tt.asker, nil)
			err := svc.Ask(t.Context(), askAll, bashRequest("s", []string{"ls"}, nil))
			if err == nil || !strings.Contains(err.Error(), tt.want) || IsPermissionError(err) {
				t.Errorf("Ask = %v, want a non-permission error containing %q", err, tt.want)
			}
		})
	}
}

// TestAnAskersRefusalIsPassedOnWithoutASecondPrefix: an asker that
// refuses (an MCP client that cannot be asked, under the deny fallback)
// returns an error that already says "permission bash for ..."; Ask
// passes it on as it is, not as "ask permission bash: permission bash ...".
func TestAnAskersRefusalIsPassedOnWithoutASecondPrefix(t *testing.T) {
	t.Parallel()
	refusal := &DeniedError{Permission: "bash", Pattern: "ls", Reason: "the client cannot be asked"}
	svc := NewService(nil, AskerFunc(func(context.Context, Request) (Reply, error) { return Reply{}, refusal }), nil)
	err := svc.Ask(t.Context(), askAll, bashRequest("s", []string{"ls"}, nil))
	if Kind(err) != OutcomeDenied || err.Error() != refusal.Error() {
		t.Errorf("Ask = %q, want the asker's own refusal %q", err, refusal)
	}
}

func TestServicePendingIsOldestFirst(t *testing.T) {
	t.Parallel()
	a := newBlockingAsker()
	svc := NewService(nil, a, nil)
	var calls []*askCall
	var dones []<-chan error
	for _, cmd := range []string{"a", "b", "c", "d"} {
		c, d := start(t, svc, a, askAll, bashRequest("s", []string{cmd}, nil))
		calls, dones = append(calls, c), append(dones, d)
	}
	var got []string
	for _, r := range svc.Pending() {
		got = append(got, r.Patterns[0])
	}
	if !slices.Equal(got, []string{"a", "b", "c", "d"}) {
		t.Errorf("pending in order %v, want a b c d", got)
	}
	for i, c := range calls {
		c.reply <- Reply{Kind: Once}
		if err := <-dones[i]; err != nil {
			t.Fatal(err)
		}
	}
}

func TestKindTellsTheFailuresApart(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		err  error
		want Outcome
	}{
		{"a denial", &DeniedError{Permission: "bash", Pattern: "rm x"}, OutcomeDenied},
		{"a wrapped rejection", errorsJoin(&RejectedError{Permission: "bash"}), OutcomeRejected},
		{"a correction", &CorrectedError{Permission: "bash", Message: "no"}, OutcomeCorrected},
		{"a wrapped unanswered request", fmt.Errorf("call bash: %w", &UnansweredError{Permission: "bash", Pattern: "ls"}), OutcomeUnanswered},
		{"a cancellation", context.Canceled, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Kind(tt.err); got != tt.want {
				t.Errorf("Kind(%v) = %q, want %q", tt.err, got, tt.want)
			}
		})
	}
}

func errorsJoin(err error) error { return errors.Join(errors.New("call failed"), err) }

func TestServiceApprovalNeverOverridesAConfigDeny(t *testing.T) {
	t.Parallel()
	rules := append(slices.Clone(askAll), Rule{Permission: "bash", Pattern: "rm -rf *", Action: Deny, Source: "toolhost.json:4"})
	a := newBlockingAsker()
	svc := NewService(nil, a, nil)
	call, done := start(t, svc, a, rules, bashRequest("s", []string{"rm foo"}, []string{"rm *"}))
	call.reply <- Reply{Kind: Always}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		command string
		want    Outcome
	}{
		{"the approval allows what the config would ask about", "rm bar", ""},
		{"the config's deny still holds inside the approved pattern", "rm -rf /", "denied"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := svc.Ask(t.Context(), rules, bashRequest("s", []string{tt.command}, nil))
			if Kind(err) != tt.want || (tt.want == "" && err != nil) {
				t.Errorf("Ask(%q) = %v, want kind %q", tt.command, err, tt.want)
			}
			e, err := svc.Explain(t.Context(), rules, "s", "bash", tt.command)
			if err != nil {
				t.Fatal(err)
			}
			wantDecision := Allow
			if tt.want == "denied" {
				wantDecision = Deny
			}
			if e.Decision != wantDecision {
				t.Errorf("Explain says %s, Ask decided %q:\n%s", e.Decision, tt.want, e.Format())
			}
		})
	}
}

func TestServiceExplainShowsTheApprovalThatDecided(t *testing.T) {
	t.Parallel()
	a := newBlockingAsker()
	svc := NewService(nil, a, nil)
	call, done := start(t, svc, a, askAll, bashRequest("s", []string{"git status"}, []string{"git *"}))
	call.reply <- Reply{Kind: Always}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	e, err := svc.Explain(t.Context(), askAll, "s", "bash", "git log")
	if err != nil {
		t.Fatal(err)
	}
	want := "allow\n" +
		"decided by: bash \"git *\": allow (session approval)\n" +
		"overridden rules:\n" +
		"  * \"*\": allow (default)\n" +
		"  bash \"*\": ask (test)\n"
	if got := e.Format(); got != want {
		t.Errorf("Format() =\n%s\nwant\n%s", got, want)
	}
}

// BenchmarkServiceAsk measures a call the rules allow (no approvals are
// read) and one the rules would ask about but a session approval allows,
// with approvals in memory and in the session store (read on every such call
// so other processes' approvals count).
func BenchmarkServiceAsk(b *testing.B) {
	allowed := bashRequest("s", []string{"git status"}, nil)
	approved := bashRequest("s", []string{"npm test"}, nil)
	rules := Ruleset{{Permission: "*", Pattern: "*", Action: Allow}, {Permission: "bash", Pattern: "npm *", Action: Ask}}
	approvals := []byte(`[{"permission":"bash","pattern":"npm *","action":"allow"}]`)
	for _, withStore := range []bool{false, true} {
		name := "memory"
		var st session.Store = session.NewMemory()
		if withStore {
			name = "store"
			var err error
			if st, err = session.Open(filepath.Join(b.TempDir(), "s.db")); err != nil {
				b.Fatal(err)
			}
		}
		if err := session.Put(b.Context(), st, "s", StoreNamespace, StoreKeyApproved, approvals); err != nil {
			b.Fatal(err)
		}
		svc := NewService(st, nil, nil)
		for _, c := range []struct {
			name string
			req  Request
		}{{"allowed by rules", allowed}, {"allowed by approval", approved}} {
			b.Run(name+"/"+c.name, func(b *testing.B) {
				for b.Loop() {
					if err := svc.Ask(b.Context(), rules, c.req); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

func TestServiceRefusesADuplicatePendingID(t *testing.T) {
	t.Parallel()
	a := newBlockingAsker()
	svc := NewService(nil, a, nil)
	req := bashRequest("s", []string{"make"}, nil)
	req.ID = "per_fixed"
	call, done := start(t, svc, a, askAll, req)
	if err := svc.Ask(t.Context(), askAll, req); err == nil || !strings.Contains(err.Error(), "already pending") {
		t.Errorf("second Ask with the same id = %v, want an error", err)
	}
	call.reply <- Reply{Kind: Once}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestServiceKeepsApprovalsOfSessionLessRequestsOutOfTheStore(t *testing.T) {
	t.Parallel()
	st := openStore(t, filepath.Join(t.TempDir(), "sessions.db"))
	a := newBlockingAsker()
	svc := NewService(st, a, nil)
	c, done := start(t, svc, a, askAll, bashRequest("", []string{"git status"}, []string{"git *"}))
	c.reply <- Reply{Kind: Always}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// The approval counts for this Service's later session-less requests...
	if err := svc.Ask(t.Context(), askAll, bashRequest("", []string{"git log"}, nil)); err != nil {
		t.Errorf("approved command asked again: %v", err)
	}
	if got, err := svc.Approved(t.Context(), ""); err != nil || len(got) != 1 {
		t.Errorf("approved = %v, %v; want the one approval", got, err)
	}
	// ...but never reaches the shared store, where it would outlive the
	// process, under any stand-in id.
	for _, sid := range []string{"anonymous", "default", "-"} {
		if kvs, err := st.List(t.Context(), sid, StoreNamespace); err != nil || len(kvs) != 0 {
			t.Errorf("a session-less approval reached the store under %q: %v %v", sid, kvs, err)
		}
	}
	// Another Service on the same store (another process) does not see it.
	other := NewService(st, failAsker(t), nil)
	if got, _ := other.Approved(t.Context(), ""); len(got) != 0 {
		t.Errorf("another Service sees session-less approvals %v", got)
	}
}

func TestServiceRefusesCorruptStoredApprovals(t *testing.T) {
	t.Parallel()
	st := session.NewMemory()
	if err := session.Put(t.Context(), st, "s", StoreNamespace, StoreKeyApproved, []byte("{not json")); err != nil {
		t.Fatal(err)
	}
	svc := NewService(st, failAsker(t), nil)
	if _, err := svc.Approved(t.Context(), "s"); err == nil || !strings.Contains(err.Error(), "corrupt") {
		t.Errorf("Approved = %v, want an error saying the approvals are corrupt", err)
	}
	// Asking fails closed rather than ignoring the approvals.
	if err := svc.Ask(t.Context(), askAll, bashRequest("s", []string{"ls"}, nil)); err == nil {
		t.Error("Ask allowed a request while the session's approvals were unreadable")
	}
}

// TestServiceUnansweredFailsOnlyItsOwnRequest: an Asker that could not get
// an answer fails that request alone, as unanswered, with the narrowest
// rule as the remedy; unlike a rejection, the session's other questions
// keep waiting for their answers.
func TestServiceUnansweredFailsOnlyItsOwnRequest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// what the asker returns for "git push origin main"
		unanswered *UnansweredError
		want       string
	}{
		{
			name:       "the service fills in permission, pattern and the rule from the request's always pattern",
			unanswered: &UnansweredError{Why: "the client answered cancel"},
			want:       `permission bash for "git push origin main" needs the user's approval, but the question could not be shown to them or was not answered (the client answered cancel). Nobody rejected it; do not retry it now. Tell the user what you wanted to do and that, to allow it, they can add "permission": {"bash": {"git push *": "allow"}} to toolhost.json`,
		},
		{
			name:       "the asker's own remedy is kept",
			unanswered: &UnansweredError{Permission: "bash", Pattern: "git push origin main", Remedy: "answer in the other window"},
			want:       `permission bash for "git push origin main" needs the user's approval, but the question could not be shown to them or was not answered. Nobody rejected it; do not retry it now. Tell the user what you wanted to do and that, to allow it, they can answer in the other window`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			blocking := newBlockingAsker()
			asker := AskerFunc(func(ctx context.Context, req Request) (Reply, error) {
				if req.Patterns[0] == "git push origin main" {
					return Reply{}, fmt.Errorf("ask the client: %w", tt.unanswered)
				}
				return blocking.Ask(ctx, req)
			})
			svc := NewService(nil, asker, nil)
			sibling, siblingDone := start(t, svc, blocking, askAll, bashRequest("s1", []string{"ls"}, nil))
			err := svc.Ask(t.Context(), askAll, bashRequest("s1", []string{"git push origin main"}, []string{"git push *"}))
			if Kind(err) != "unanswered" || err.Error() != tt.want {
				t.Fatalf("Ask = %v (kind %q), want kind unanswered with\n%s", err, Kind(err), tt.want)
			}
			if got := pendingIDs(svc); !slices.Equal(got, []string{sibling.req.ID}) {
				t.Fatalf("pending %v, want the sibling %s still waiting", got, sibling.req.ID)
			}
			sibling.reply <- Reply{Kind: Once}
			if err := <-siblingDone; err != nil {
				t.Errorf("sibling = %v, want it allowed by its own answer", err)
			}
		})
	}
}

func TestUnansweredErrorUnwrapsItsCause(t *testing.T) {
	t.Parallel()
	err := &UnansweredError{Permission: "edit", Pattern: "a.go", Err: context.DeadlineExceeded}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("errors.Is(%v, DeadlineExceeded) = false", err)
	}
	if want := `add "permission": {"edit": {"a.go": "allow"}} to toolhost.json`; !strings.HasSuffix(err.Error(), want) {
		t.Errorf("message %q does not end with the default remedy %q", err, want)
	}
}

func TestServiceTellsTheAskerWhichRuleAsked(t *testing.T) {
	t.Parallel()
	a := newBlockingAsker()
	svc := NewService(nil, a, nil)
	c, done := start(t, svc, a, askAll, bashRequest("s1", []string{"ls"}, nil))
	want := Rule{Permission: "bash", Pattern: "*", Action: Ask, Source: "test"}
	if c.req.AskedBy == nil || *c.req.AskedBy != want {
		t.Errorf("AskedBy = %v, want %v", c.req.AskedBy, want)
	}
	c.reply <- Reply{Kind: Once}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestServiceRevokeMakesAnApprovedRequestAskAgain(t *testing.T) {
	t.Parallel()
	a := newBlockingAsker()
	svc := NewService(nil, a, nil)
	c, done := start(t, svc, a, askAll, bashRequest("s1", []string{"git status"}, []string{"git *"}))
	c.reply <- Reply{Kind: Always}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if found, err := svc.Revoke(t.Context(), "s1", Rule{Permission: "bash", Pattern: "rm *"}); err != nil || found {
		t.Errorf("Revoke of an approval never given = %v, %v; want false, nil", found, err)
	}
	if found, err := svc.Revoke(t.Context(), "s1", Rule{Permission: "bash", Pattern: "git *"}); err != nil || !found {
		t.Fatalf("Revoke = %v, %v; want true, nil", found, err)
	}
	if got, _ := svc.Approved(t.Context(), "s1"); len(got) != 0 {
		t.Errorf("approvals after revoke: %v", got)
	}
	again, againDone := start(t, svc, a, askAll, bashRequest("s1", []string{"git log"}, nil))
	again.reply <- Reply{Kind: Reject}
	if err := <-againDone; err == nil {
		t.Error("a revoked approval still allowed the request")
	}
}
