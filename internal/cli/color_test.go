package cli

import (
	"strings"
	"testing"
)

func TestColourIsOnlyForTerminalsAndFollowsNoColorAndForceColor(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		terminal bool
		env      map[string]string
		want     bool
	}{
		{"a terminal gets colour", true, nil, true},
		{"a pipe gets none", false, nil, false},
		{"NO_COLOR turns it off at a terminal", true, map[string]string{"NO_COLOR": "1"}, false},
		{"an empty NO_COLOR is not set", true, map[string]string{"NO_COLOR": ""}, true},
		{"a dumb terminal gets none", true, map[string]string{"TERM": "dumb"}, false},
		{"FORCE_COLOR colours a pipe", false, map[string]string{"FORCE_COLOR": "1"}, true},
		{"FORCE_COLOR=0 forces nothing", false, map[string]string{"FORCE_COLOR": "0"}, false},
		{"NO_COLOR wins over FORCE_COLOR", true, map[string]string{"NO_COLOR": "1", "FORCE_COLOR": "1"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := colorOn(tc.terminal, func(k string) string { return tc.env[k] }); got != tc.want {
				t.Fatalf("colorOn = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestAPaletteThatIsOffChangesNothing(t *testing.T) {
	t.Parallel()
	var off palette
	d := "--- a\n+++ b\n@@ -1 +1 @@\n-old\n+new"
	if off.diff(d) != d || off.red("x") != "x" || off.decision("deny") != "deny" {
		t.Fatal("an off palette changed its text")
	}
	on := palette{true}
	if got := on.diff(d); !strings.Contains(got, "\x1b[32m+new\x1b[0m") || !strings.Contains(got, "\x1b[31m-old\x1b[0m") {
		t.Errorf("diff not coloured: %q", got)
	}
	if got := on.decision("ask  "); !strings.HasPrefix(got, "\x1b[33m") {
		t.Errorf("a padded decision is not coloured: %q", got)
	}
}

func TestLiveOutputIsNotRepeatedAtTheSameTerminal(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		live  []string // successive live outputs
		final string
		want  string
	}{
		{"final output equal to the live output adds nothing", []string{"a\n", "a\nb\n"}, "a\nb\n", ""},
		{"a live output without its newline gets one", []string{"a"}, "a", "\n"},
		{"notes after the live output are printed alone", []string{"a\n"}, "a\n\n<bash_metadata>\ntimeout\n</bash_metadata>", "\n<bash_metadata>\ntimeout\n</bash_metadata>"},
		{"a rewritten output is printed whole", []string{"a\nb\n"}, "a\n...truncated", "a\n...truncated"},
		{"nothing shown live prints everything", nil, "all", "all"},
		{"live output replaced mid-way is followed", []string{"abc", "xyz"}, "xyz!", "!"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var shown strings.Builder
			p := &progressPrinter{w: &shown}
			for _, o := range tc.live {
				p.update("t", map[string]any{"output": o})
			}
			if got := p.unshown(tc.final); got != tc.want {
				t.Fatalf("unshown = %q, want %q (shown live: %q)", got, tc.want, shown.String())
			}
		})
	}
}
