package permission

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/toolhost/toolhost/runtime/session"
)

// countingAsker answers every question with reply and counts them.
type countingAsker struct {
	mu    sync.Mutex
	n     int
	reply Reply
}

func (a *countingAsker) Ask(context.Context, Request) (Reply, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.n++
	return a.reply, nil
}

func (a *countingAsker) asked() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.n
}

func TestAnAnswerRecordedAfterItsCallEndedLetsExactlyThatRequestThroughOnce(t *testing.T) {
	t.Parallel()
	edit := Request{SessionID: "ses_a", Tool: "edit", Permission: "edit", Patterns: []string{"main.go"}, Always: []string{"*"}, Metadata: map[string]any{"diff": "-a\n+b\n"}}
	otherDiff := edit
	otherDiff.Metadata = map[string]any{"diff": "-a\n+c\n"}
	otherSession := edit
	otherSession.SessionID = "ses_b"
	otherFile := edit
	otherFile.Patterns = []string{"go.mod"}
	rules := Ruleset{{Permission: "*", Pattern: "*", Action: Ask}}
	denyRules := Ruleset{{Permission: "edit", Pattern: "main.go", Action: Deny}}

	tests := []struct {
		name   string
		reply  Reply
		ask    Request
		rules  Ruleset
		asked  int // times the person is asked on the retry
		errKnd Outcome
	}{
		{"once lets the same request through", Reply{Kind: Once}, edit, rules, 0, ""},
		{"always lets the same request through", Reply{Kind: Always}, edit, rules, 0, ""},
		{"a different diff is asked again", Reply{Kind: Once}, otherDiff, rules, 1, ""},
		{"another session is asked again", Reply{Kind: Once}, otherSession, rules, 1, ""},
		{"another file is asked again", Reply{Kind: Once}, otherFile, rules, 1, ""},
		{"a rejection records nothing", Reply{Kind: Reject}, edit, rules, 1, ""},
		{"a deny rule still denies", Reply{Kind: Once}, edit, denyRules, 0, "denied"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a := &countingAsker{reply: Reply{Kind: Once}}
			svc := NewService(session.NewMemory(), a, nil)
			if err := svc.RecordAnswer(t.Context(), edit, tt.reply); err != nil {
				t.Fatal(err)
			}
			err := svc.Ask(t.Context(), tt.rules, tt.ask)
			if Kind(err) != tt.errKnd || (tt.errKnd == "" && err != nil) {
				t.Fatalf("Ask = %v, want kind %q", err, tt.errKnd)
			}
			if a.asked() != tt.asked {
				t.Errorf("the person was asked %d times on the retry, want %d", a.asked(), tt.asked)
			}
		})
	}
}

func TestAOnceGrantIsUsedUp(t *testing.T) {
	t.Parallel()
	a := &countingAsker{reply: Reply{Kind: Once}}
	store := session.NewMemory()
	svc := NewService(store, a, nil)
	req := Request{SessionID: "ses_a", Permission: "bash", Patterns: []string{"make"}}
	if err := svc.RecordAnswer(t.Context(), req, Reply{Kind: Once}); err != nil {
		t.Fatal(err)
	}
	// Another process on the same store sees the grant.
	other := NewService(store, a, nil)
	for range 2 {
		if err := other.Ask(t.Context(), nil, req); err != nil {
			t.Fatal(err)
		}
	}
	if a.asked() != 1 {
		t.Errorf("asked %d times over two calls after one grant; want 1 (the grant is used up)", a.asked())
	}
	if _, ok, _ := store.Get(t.Context(), "ses_a", StoreNamespace, StoreKeyGranted); ok {
		t.Error("the used grant is still stored")
	}
}

func TestRecordAnswerRefusesAnUnknownReply(t *testing.T) {
	t.Parallel()
	svc := NewService(nil, nil, nil)
	if err := svc.RecordAnswer(t.Context(), Request{Permission: "bash"}, Reply{Kind: "maybe"}); err == nil {
		t.Error("an unknown reply was recorded")
	}
}

func TestTheObserverIsToldHowEachRequestWasDecided(t *testing.T) {
	t.Parallel()
	a := &countingAsker{}
	svc := NewService(nil, a, nil)
	var got []Outcome
	svc.Observe(func(perm string, o Outcome) {
		if perm != "bash" {
			t.Errorf("observed permission %q", perm)
		}
		got = append(got, o)
	})
	allow := Ruleset{{Permission: "bash", Pattern: "ls *", Action: Allow}, {Permission: "bash", Pattern: "rm *", Action: Deny}}
	ask := func(cmd string, r Reply) error {
		a.reply = r
		return svc.Ask(t.Context(), allow, Request{SessionID: "s", Permission: "bash", Patterns: []string{cmd}, Always: []string{"make *"}})
	}
	_ = ask("ls -l", Reply{})
	_ = ask("rm -rf /", Reply{})
	_ = ask("make", Reply{Kind: Once})
	_ = ask("make all", Reply{Kind: Always})
	_ = ask("make test", Reply{})
	_ = ask("cat x", Reply{Kind: Reject})
	_ = ask("cat y", Reply{Kind: Reject, Message: "use read"})
	_ = svc.RecordAnswer(t.Context(), Request{SessionID: "s", Permission: "bash", Patterns: []string{"go vet"}, Always: []string{"make *"}}, Reply{Kind: Once})
	_ = ask("go vet", Reply{})
	want := []Outcome{AllowedByRule, OutcomeDenied, AllowedOnce, AllowedAlways, AllowedByApproval, OutcomeRejected, OutcomeCorrected, AllowedByGrant}
	if len(got) != len(want) {
		t.Fatalf("observed %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("decision %d observed as %s, want %s", i, got[i], want[i])
		}
	}
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	blocking := newBlockingAsker()
	svc2 := NewService(nil, blocking, nil)
	var last Outcome
	svc2.Observe(func(_ string, o Outcome) { last = o })
	if err := svc2.Ask(cancelled, nil, Request{Permission: "bash"}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled Ask = %v", err)
	}
	if last != OutcomeError {
		t.Errorf("a cancelled wait observed as %q, want %q", last, OutcomeError)
	}
}
