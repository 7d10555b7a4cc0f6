package cli_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/e2e"
)

// tourScript is the shell code of the README's five-minute tour: every
// ```sh block of the section, except transcripts (blocks whose first line
// starts with "$ "), in order.
func tourScript(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	start := strings.Index(readme, "\n## A five-minute tour\n")
	if start < 0 {
		t.Fatal(`README.md has no "## A five-minute tour" section`)
	}
	section := readme[start+1:]
	if end := strings.Index(section[3:], "\n## "); end >= 0 {
		section = section[:end+3]
	}
	var script strings.Builder
	for rest := section; ; {
		i := strings.Index(rest, "```sh\n")
		if i < 0 {
			break
		}
		rest = rest[i+len("```sh\n"):]
		j := strings.Index(rest, "```")
		if j < 0 {
			t.Fatal("README.md: a ```sh block in the tour is not closed")
		}
		block := rest[:j]
		rest = rest[j+3:]
		if !strings.HasPrefix(block, "$ ") {
			script.WriteString(block)
		}
	}
	if !strings.Contains(script.String(), "toolhost call") {
		t.Fatalf("the tour has no commands to run:\n%s", section)
	}
	return script.String()
}

// TestTheReadmeTourRunsAsWrittenInAnEmptyDirectory runs the tour's
// commands with sh, in a new empty directory, with the built binary on
// PATH as `toolhost`, as a reader pasting them would.
func TestTheReadmeTourRunsAsWrittenInAnEmptyDirectory(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("the tour runs git init: ", err)
		}
		t.Skip("the tour runs git init: ", err)
	}
	script := tourScript(t)
	p := e2e.NewProject(t)
	empty := t.TempDir()
	cmd := exec.Command("sh", "-e", "-c", script)
	cmd.Dir = empty
	cmd.Env = append(p.Environ(), "PATH="+filepath.Dir(p.Bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("the tour failed: %v\nscript:\n%s\nstdout:\n%s\nstderr:\n%s", err, script, out.String(), errb.String())
	}
	for _, want := range []string{"remember the milk", "notes.txt", "Wrote file successfully", `"content": "ship"`} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the tour's output lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(errb.String(), "toolhost:") {
		t.Errorf("the tour reported a problem:\n%s", errb.String())
	}
}
