//go:build unix

package cli_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/toolhost/toolhost/internal/cli"
	"github.com/toolhost/toolhost/internal/testkit/e2e"
)

// updateReadme rewrites the outputs of README.md's tour from the binary:
// go test ./internal/cli -run ReadmeTour -update-readme
var updateReadme = flag.Bool("update-readme", false, "rewrite the outputs shown in README.md's tour from the real binary")

// The README's tour is written as ```console blocks: a line starting with
// "$ " is a command, the lines after it until the next command are what it
// prints (stdout and stderr together, as a terminal shows them), and a last
// line "(exit status N)" gives a status other than 0.

// tourStep is one command of the tour and what README.md shows for it.
type tourStep struct {
	command string
	output  string // as shown, without the exit line
	status  int
}

var exitLine = regexp.MustCompile(`^\(exit status (\d+)\)$`)

const (
	tourHeading = "\n## A five-minute tour\n"
	consoleOpen = "```console\n"
	fence       = "```"
)

// tourSection returns README.md and the bounds of its tour section.
func tourSection(t *testing.T) (readme string, start, end int) {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme = string(b)
	start = strings.Index(readme, tourHeading)
	if start < 0 {
		t.Fatalf("README.md has no %q section", strings.TrimSpace(tourHeading))
	}
	end = len(readme)
	if i := strings.Index(readme[start+len(tourHeading):], "\n## "); i >= 0 {
		end = start + len(tourHeading) + i
	}
	return readme, start, end
}

// parseTour reads the steps of the tour's console blocks, and calls block
// with each block's bounds in section (for rewriting).
func parseTour(t *testing.T, section string, block func(start, end int, steps []tourStep)) []tourStep {
	t.Helper()
	var all []tourStep
	for off := 0; ; {
		i := strings.Index(section[off:], consoleOpen)
		if i < 0 {
			break
		}
		bodyStart := off + i + len(consoleOpen)
		j := strings.Index(section[bodyStart:], fence)
		if j < 0 {
			t.Fatal("README.md: a ```console block in the tour is not closed")
		}
		bodyEnd := bodyStart + j
		var steps []tourStep
		for _, line := range strings.SplitAfter(section[bodyStart:bodyEnd], "\n") {
			switch {
			case line == "":
			case strings.HasPrefix(line, "$ "):
				steps = append(steps, tourStep{command: strings.TrimSuffix(line[2:], "\n")})
			case len(steps) == 0:
				t.Fatalf("README.md: a console block in the tour starts with output, not a command: %q", line)
			case exitLine.MatchString(strings.TrimSuffix(line, "\n")):
				steps[len(steps)-1].status, _ = strconv.Atoi(exitLine.FindStringSubmatch(strings.TrimSuffix(line, "\n"))[1])
			default:
				steps[len(steps)-1].output += line
			}
		}
		if block != nil {
			block(bodyStart, bodyEnd, steps)
		}
		all = append(all, steps...)
		off = bodyEnd + len(fence)
	}
	if len(all) == 0 {
		t.Fatal("README.md: the tour has no ```console blocks")
	}
	return all
}

// record separates the steps' outputs in the tour's combined output.
const record = "\x1e"

// runTour runs the steps as one shell script (so cd carries over) in a new
// empty directory that is also the fresh user's home, with the binary on
// PATH as toolhost and no terminal, and returns each step's output and
// exit status, with the home directory written as /home/me.
func runTour(t *testing.T, bin string, steps []tourStep) []tourStep {
	t.Helper()
	home := t.TempDir()
	var script strings.Builder
	for i, s := range steps {
		fmt.Fprintf(&script, "printf '%sstep %d\\n'\n%s\nprintf '%sexit %%d\\n' $?\n", record, i, s.command, record)
	}
	cmd := exec.Command("sh", "-c", script.String())
	cmd.Dir = home
	cmd.Env = []string{"HOME=" + home, "PATH=" + filepath.Dir(bin) + string(os.PathListSeparator) + os.Getenv("PATH"), "LANG=C.UTF-8", "TZ=UTC"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // no controlling terminal: nobody can be asked
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("the tour's script failed: %v\n%s", err, out.String())
	}
	text := out.String()
	if real, err := filepath.EvalSymlinks(home); err == nil && real != home {
		text = strings.ReplaceAll(text, real, "/home/me")
	}
	text = strings.ReplaceAll(text, home, "/home/me")
	got := make([]tourStep, len(steps))
	parts := strings.Split(text, record)
	// parts: "", "step 0\n<output>", "exit N\n", "step 1\n...", ...
	if len(parts) != 2*len(steps)+1 {
		t.Fatalf("the tour's output has %d parts, want %d:\n%s", len(parts), 2*len(steps)+1, text)
	}
	for i := range steps {
		body := strings.TrimPrefix(parts[1+2*i], fmt.Sprintf("step %d\n", i))
		status, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(parts[2+2*i], "exit ")))
		if err != nil {
			t.Fatalf("step %d: no exit status in %q", i, parts[2+2*i])
		}
		if body != "" && !strings.HasSuffix(body, "\n") {
			body += "\n"
		}
		got[i] = tourStep{command: steps[i].command, output: body, status: status}
	}
	return got
}

// The only differences the comparison forgives: times and ports. Paths
// are already the same (runTour writes the home directory as /home/me).
var (
	durations = regexp.MustCompile(`\b\d+(\.\d+)?(ns|µs|ms|s|m)\b`)
	ports     = regexp.MustCompile(`(127\.0\.0\.1|localhost|\[::1\]):\d+`)
)

func normalise(s string) string {
	s = durations.ReplaceAllString(s, "<time>")
	return ports.ReplaceAllString(s, "$1:<port>")
}

// TestTheReadmeTourRunsAsWritten takes README.md's tour as a new user
// would — in a new, empty directory, with a fresh home, no config and no
// terminal — and checks that every command prints what the README shows
// and exits with the status it shows.
func TestTheReadmeTourRunsAsWritten(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("the tour runs git init: ", err)
		}
		t.Skip("the tour runs git init: ", err)
	}
	readme, start, end := tourSection(t)
	section := readme[start:end]
	type span struct{ start, end int }
	var blocks []span
	var sizes []int
	want := parseTour(t, section, func(s, e int, steps []tourStep) {
		blocks = append(blocks, span{s, e})
		sizes = append(sizes, len(steps))
	})
	got := runTour(t, e2e.Binary(t), want)
	if *updateReadme {
		var b strings.Builder
		last, k := 0, 0
		for i, bl := range blocks {
			b.WriteString(section[last:bl.start])
			for _, s := range got[k : k+sizes[i]] {
				fmt.Fprintf(&b, "$ %s\n%s", s.command, s.output)
				if s.status != 0 {
					fmt.Fprintf(&b, "(exit status %d)\n", s.status)
				}
			}
			k += sizes[i]
			last = bl.end
		}
		b.WriteString(section[last:])
		if err := os.WriteFile("../../README.md", []byte(readme[:start]+b.String()+readme[end:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	for i, w := range want {
		g := got[i]
		if g.status != w.status {
			t.Errorf("$ %s\nexit status %d, README.md shows %d; output:\n%s", w.command, g.status, w.status, g.output)
		}
		if normalise(g.output) != normalise(w.output) {
			t.Errorf("$ %s\nprints:\n%s\nREADME.md shows:\n%s(go test ./internal/cli -run ReadmeTour -update-readme rewrites it)", w.command, g.output, w.output)
		}
	}
}

// TestTheReadmeDocumentsEveryExitStatus: the exit-status table in the
// tour lists each status the CLI uses with the meaning it gives it.
func TestTheReadmeDocumentsEveryExitStatus(t *testing.T) {
	t.Parallel()
	readme, start, end := tourSection(t)
	for _, s := range cli.ExitStatuses {
		if row := fmt.Sprintf("| %d | %s |\n", s.Code, s.Meaning); !strings.Contains(readme[start:end], row) {
			t.Errorf("README.md's tour lacks the row %q", row)
		}
	}
}

// TestTheTourComparisonFailsWhenAnOutputChanges: the comparison forgives
// times and ports, nothing else.
func TestTheTourComparisonFailsWhenAnOutputChanges(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, shown, printed string
		same                 bool
	}{
		{"a time may differ", "took 1.2s\n", "took 35ms\n", true},
		{"a port may differ", "at http://127.0.0.1:4821/\n", "at http://127.0.0.1:39011/\n", true},
		{"a word may not", "allow\n", "deny\n", false},
		{"a line may not be missing", "a\nb\n", "a\n", false},
		{"a number that is not a time may not differ", "12 tools\n", "20 tools\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := normalise(tt.shown) == normalise(tt.printed); got != tt.same {
				t.Errorf("%q against %q: same %v, want %v", tt.shown, tt.printed, got, tt.same)
			}
		})
	}
}
