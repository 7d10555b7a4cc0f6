package textfill

import "testing"

// Values come from files a project ships (a skill's name and description
// fill the skill tool's description): a value that looks like a
// placeholder is written as it is, never filled again and never an error
// (MustFill would panic on one).
func TestAValueThatLooksLikeAPlaceholderIsWrittenAsItIs(t *testing.T) {
	t.Parallel()
	for _, v := range []string{"{{.Skills}}", "{{", "}}{{.Name", "{{call .X}}"} {
		got, err := Fill("skills: {{.Skills}} end", map[string]any{"Skills": v})
		if err != nil || got != "skills: "+v+" end" {
			t.Errorf("Fill with value %q = %q, %v", v, got, err)
		}
	}
}
