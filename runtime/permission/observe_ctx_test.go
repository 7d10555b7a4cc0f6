package permission

import (
	"context"
	"slices"
	"testing"
)

func TestACallsObserverHearsOnlyTheDecisionsMadeUnderItsContext(t *testing.T) {
	t.Parallel()
	svc := NewService(nil, nil, nil)
	rules := Ruleset{{Permission: "bash", Pattern: "ls *", Action: Allow}, {Permission: "bash", Pattern: "rm *", Action: Deny}}
	var outer, inner []string
	record := func(into *[]string) Observer {
		return func(p string, o Outcome) { *into = append(*into, p+"="+string(o)) }
	}
	ctx := ObserveDecisions(t.Context(), record(&outer))
	nested := ObserveDecisions(ctx, record(&inner))
	_ = svc.Ask(ctx, rules, Request{Permission: "bash", Patterns: []string{"ls -l"}})
	_ = svc.Ask(nested, rules, Request{Permission: "bash", Patterns: []string{"rm -rf /"}})
	// Not under either: another call's decision.
	_ = svc.Ask(context.Background(), rules, Request{Permission: "bash", Patterns: []string{"ls"}})
	if want := []string{"bash=allowed_by_rule", "bash=denied"}; !slices.Equal(outer, want) {
		t.Errorf("the outer observer heard %v; want %v", outer, want)
	}
	if want := []string{"bash=denied"}; !slices.Equal(inner, want) {
		t.Errorf("the nested observer heard %v; want %v", inner, want)
	}
	if got := ObserveDecisions(ctx, nil); got != ctx {
		t.Error("a nil observer changed the context")
	}
}
