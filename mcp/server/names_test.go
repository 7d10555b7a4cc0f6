package server

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/runtime"
)

// TestToolMentionsAreRenamedOnlyWhereTheyNameATool runs the corpus in
// testdata/tool_mentions.json: mentions of tools in descriptions take the
// client's names, while ordinary words that happen to be tool ids, code in
// backticks and words that merely contain an id stay as they are.
func TestToolMentionsAreRenamedOnlyWhereTheyNameATool(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("testdata/tool_mentions.json")
	if err != nil {
		t.Fatal(err)
	}
	var corpus []struct{ Name, Text, Want string }
	if err := json.Unmarshal(b, &corpus); err != nil {
		t.Fatal(err)
	}
	ids := []string{"read", "write", "edit", "bash", "glob", "grep", "list", "task", "todoread", "todowrite", "webfetch"}
	n := newToolNamer(ids, runtime.Front{ToolPrefix: "toolhost_"})
	for _, c := range corpus {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			if got := n.rename(c.Text); got != c.Want {
				t.Errorf("rename(%q)\n got %q\nwant %q", c.Text, got, c.Want)
			}
		})
	}
	t.Run("without a prefix nothing changes", func(t *testing.T) {
		t.Parallel()
		plain := newToolNamer(ids, runtime.Front{})
		for _, c := range corpus {
			if got := plain.rename(c.Text); got != c.Text {
				t.Errorf("rename(%q) = %q with no prefix", c.Text, got)
			}
		}
	})
}

// FuzzToolNamerOnlyInsertsThePrefix: renaming never changes text other than
// by putting the prefix before tool ids, spelled as the ids are ("Grep"
// becomes "p_grep").
func FuzzToolNamerOnlyInsertsThePrefix(f *testing.F) {
	f.Add("Read the file with the read tool; use grep and read.")
	f.Add("`unbalanced the read tool")
	n := newToolNamer([]string{"read", "grep", "task"}, runtime.Front{ToolPrefix: "p_"})
	f.Fuzz(func(t *testing.T, s string) {
		if strings.Contains(strings.ToLower(s), "p_") {
			return
		}
		if got := n.rename(s); strings.ToLower(strings.ReplaceAll(got, "p_", "")) != strings.ToLower(s) {
			t.Errorf("rename(%q) = %q: changed more than prefixes", s, got)
		}
	})
}
