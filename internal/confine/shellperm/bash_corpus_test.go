//go:build unix

package shellperm

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/config"
	"github.com/toolhost/toolhost/runtime/permission"
)

var updateCorpus = flag.Bool("update", false, "rewrite the expectations of testdata/bash_corpus.txt")

const bashCorpusFile = "testdata/bash_corpus.txt"

// corpusConfigs are the rule sets every corpus command is decided
// under, in the order of a case's "=" line.
//
// The allow lists allow the text processors and git outright ("awk *",
// "git *"), as a person granting text processing would: what those run
// through their options and program texts must still be denied or asked.
// The last deny list is the one of issue 28, which an inner `touch` must
// not slip past.
var corpusConfigs = []struct{ name, json string }{
	{"deny", `{"permission":{"bash":{"*":"deny","git status":"allow","ls *":"allow","echo *":"allow",` + allowedPrograms + `},"external_directory":"deny"}}`},
	{"ask", `{"permission":{"bash":{"*":"ask","git status":"allow","ls *":"allow","echo *":"allow",` + allowedPrograms + `},"external_directory":"ask"}}`},
	{"denylist", `{"permission":{"bash":{"*":"allow","rm *":"deny"},"external_directory":"deny"}}`},
	{"touchdeny", `{"permission":{"bash":{"*":"allow","touch *":"deny"}}}`},
}

// allowedPrograms are allowed by both allow lists.
const allowedPrograms = `"awk *":"allow","mawk *":"allow","sed *":"allow","tar *":"allow","git *":"allow","sort *":"allow"`

// corpusCase is one command of the corpus with its expectations.
type corpusCase struct {
	line    int
	command string
	want    []string // request lines and the decisions line
	section string
}

func readBashCorpus(t *testing.T) (header []string, cases []*corpusCase, raw []string) {
	t.Helper()
	f, err := os.Open(bashCorpusFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	var cur *corpusCase
	section := ""
	for sc.Scan() {
		n++
		l := sc.Text()
		raw = append(raw, l)
		switch {
		case strings.HasPrefix(l, "$ "):
			cur = &corpusCase{line: n, command: l[2:], section: section}
			cases = append(cases, cur)
		case strings.HasPrefix(l, "> ") && cur != nil && len(cur.want) == 0:
			cur.command += "\n" + l[2:]
		case strings.HasPrefix(l, "  ") && cur != nil:
			cur.want = append(cur.want, strings.TrimSpace(l))
		case strings.HasPrefix(l, "## "):
			section = l
			cur = nil
		case cur == nil && len(cases) == 0:
			header = append(header, l)
		default:
			cur = nil
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return header, cases, raw
}

func corpusRules(t *testing.T) []permission.Ruleset {
	t.Helper()
	var out []permission.Ruleset
	for _, c := range corpusConfigs {
		var cfg config.Config
		if err := json.Unmarshal([]byte(c.json), &cfg); err != nil {
			t.Fatalf("config %s: %v", c.name, err)
		}
		agents, err := runtime.ResolveAgents(&cfg)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, agents["build"].Rules)
	}
	return out
}

// corpusResult renders what the analysis makes of a command: its request
// lines and the decisions line.
func corpusResult(t *testing.T, command string, rulesets []permission.Ruleset) []string {
	reqs, err := Requests(command, "/project", "/project", inFakeProject)
	if err != nil {
		return []string{"error: " + err.Error()}
	}
	home, _ := os.UserHomeDir()
	var lines []string
	for _, r := range reqs {
		for _, p := range r.Patterns {
			mark := ""
			if _, ok := r.Unresolved[p]; ok {
				mark = "?"
			}
			if home != "" && home != "/" {
				p = strings.ReplaceAll(p, home, "~")
			}
			lines = append(lines, fmt.Sprintf("%s: %s%s", r.Permission, mark, strings.ReplaceAll(p, "\n", `\n`)))
		}
	}
	decisions := make([]string, len(rulesets))
	for i, rules := range rulesets {
		var ex []permission.Explanation
		for _, r := range reqs {
			ex = append(ex, permission.ExplainRequest(r, rules)...)
		}
		decisions[i] = string(permission.Strictest(ex))
	}
	return append(lines, "= "+strings.Join(decisions, " "))
}

// TestBashCorpus runs every command of the adversarial corpus through the
// analysis and checks the requests it produces and the decisions they get
// under an allow list that denies, one that asks, and a deny list.
func TestBashCorpus(t *testing.T) {
	t.Parallel()
	header, cases, _ := readBashCorpus(t)
	if len(cases) < 150 {
		t.Fatalf("corpus has %d commands, want at least 150", len(cases))
	}
	rulesets := corpusRules(t)
	if *updateCorpus {
		var b strings.Builder
		// Blank lines before the first section are written with it.
		for len(header) > 0 && strings.TrimSpace(header[len(header)-1]) == "" {
			header = header[:len(header)-1]
		}
		for _, l := range header {
			b.WriteString(l + "\n")
		}
		section := ""
		for _, c := range cases {
			if c.section != section {
				section = c.section
				b.WriteString("\n" + section + "\n")
			}
			lines := strings.Split(c.command, "\n")
			b.WriteString("$ " + lines[0] + "\n")
			for _, l := range lines[1:] {
				b.WriteString("> " + l + "\n")
			}
			for _, l := range corpusResult(t, c.command, rulesets) {
				b.WriteString("  " + l + "\n")
			}
		}
		if err := os.WriteFile(bashCorpusFile, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	for _, c := range cases {
		got := corpusResult(t, c.command, rulesets)
		if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("%s:%d: %q\ngot:\n  %s\nwant:\n  %s", bashCorpusFile, c.line, c.command, strings.Join(got, "\n  "), strings.Join(c.want, "\n  "))
		}
		// Whatever else, no command of the corpus that touches p, f or
		// /outside may be allowed by the allow list that denies.
		if d := got[len(got)-1]; strings.HasPrefix(d, "= allow") && touchesTarget(c.command) {
			t.Errorf("%s:%d: %q is allowed by the deny-by-default allow list", bashCorpusFile, c.line, c.command)
		}
	}
}

// touchesTarget: the corpus's attacks all aim at "p", "f" or /outside.
func touchesTarget(command string) bool {
	return strings.Contains(command, "touch p") || strings.Contains(command, "/outside") || strings.Contains(command, "rm ")
}
