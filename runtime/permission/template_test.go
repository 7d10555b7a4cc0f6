package permission

import (
	"strings"
	"testing"
)

func TestTemplateMatching(t *testing.T) {
	t.Parallel()
	h := Hole
	tests := []struct {
		pattern, template string
		must, may         bool
	}{
		{"*", h, true, true},
		{"**", h, true, true},
		{"rm *", h, false, true},
		{"echo *", "echo " + h, true, true},
		{"echo *", "echo" + h, false, true},
		{"rm *", "echo " + h, false, false},
		{"git status", "git " + h, false, true},
		{"git status", "git status", true, true},
		{"git ?", "git " + h, false, true},
		{"ls *", "ls" + h, false, true},
		{"* f", h + " f", true, true},
		{"/outside/*", h, false, true},
		{"a*b", "a" + h + "b", true, true},
		{"a*b", "a" + h + "c", false, false},
		{"a*c*b", "a" + h + "b", false, true},
	}
	for _, tt := range tests {
		if got := MustMatch(tt.pattern, tt.template); got != tt.must {
			t.Errorf("MustMatch(%q, %q) = %v, want %v", tt.pattern, DisplayTemplate(tt.template), got, tt.must)
		}
		if got := MayMatch(tt.pattern, tt.template); got != tt.may {
			t.Errorf("MayMatch(%q, %q) = %v, want %v", tt.pattern, DisplayTemplate(tt.template), got, tt.may)
		}
	}
}

func TestEvaluateTemplateFailsClosed(t *testing.T) {
	t.Parallel()
	r := func(pattern string, a Action) Rule { return Rule{Permission: "bash", Pattern: pattern, Action: a} }
	tests := []struct {
		name     string
		template string
		rules    Ruleset
		want     Action
	}{
		{"only a star allows an unknown command", Hole, Ruleset{r("*", Deny), r("git status", Allow)}, Deny},
		{"a star allow allows an unknown command", Hole, Ruleset{r("*", Allow)}, Allow},
		{"a deny that might apply denies", Hole, Ruleset{r("*", Allow), r("rm *", Deny)}, Deny},
		{"an ask that might apply asks", Hole, Ruleset{r("*", Allow), r("curl *", Ask)}, Ask},
		{"a deny overridden by a later star allow no longer applies", Hole, Ruleset{r("rm *", Deny), r("*", Allow)}, Allow},
		{"known text narrows what might apply", "echo " + Hole, Ruleset{r("*", Allow), r("rm *", Deny)}, Allow},
		{"an allow covering every filling allows", "echo " + Hole, Ruleset{r("*", Deny), r("echo *", Allow)}, Allow},
		{"an allow of one filling does not", "git " + Hole, Ruleset{r("*", Deny), r("git status", Allow)}, Deny},
		{"no rule asks", Hole, nil, Ask},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got, _ := EvaluateTemplate("bash", tt.template, tt.rules); got.Action != tt.want {
				t.Errorf("EvaluateTemplate(%q) = %s, want %s", DisplayTemplate(tt.template), got.Action, tt.want)
			}
		})
	}
}

// FuzzTemplateMatch checks the two template matchers against Match on
// concrete fillings: a pattern that must match a template matches every
// filling, and a pattern matching some filling may match the template.
func FuzzTemplateMatch(f *testing.F) {
	f.Add("rm *", "rm \x00", "f")
	f.Add("a*b?c", "a\x00c", "bxb")
	f.Add("ls *", "ls\x00", " -la")
	f.Fuzz(func(t *testing.T, pattern, template, fill string) {
		if strings.ContainsRune(fill, 0) || strings.HasPrefix(pattern, "~") || strings.HasPrefix(pattern, "$HOME") {
			return
		}
		concrete := strings.ReplaceAll(template, Hole, fill)
		if MustMatch(pattern, template) && !Match(pattern, concrete) {
			t.Errorf("MustMatch(%q, %q) but not Match(%q)", pattern, template, concrete)
		}
		if Match(pattern, concrete) && !MayMatch(pattern, template) {
			t.Errorf("Match(%q, %q) but not MayMatch(%q)", pattern, concrete, template)
		}
	})
}
