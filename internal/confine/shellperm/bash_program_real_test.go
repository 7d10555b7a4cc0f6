//go:build linux

package shellperm

import (
	"context"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// awkFragments and sedFragments are joined at random into programs that
// mix what runs commands with what hides text from a reader: strings,
// regexes, brackets, comments, continuations, labels, appended text.
var awkFragments = []string{
	`system("touch p")`, `system ("touch p")`, `"touch p" | getline`, `print "x" | "touch p"`, `printf("x") | "touch p"`,
	`/a/`, `/"/`, `/[/]/`, `/[[:alpha:]]/`, `1 / 2`, `x = "a\"b"`, "# \"\n", `length`, `getline`, `$`, `++`, `--`, "\n", `;`,
	`"/"`, `(`, `)`, `x`, `/ 2`, `"#"`, `/;/`, `{`, `}`, `print`, `printf "%s", 1`, ` > "q"`, `a[1]`, `/=/`, `"\\"`, "\\\n",
	`i++ /`, `x /`, `-`, `!`, `~`, `"\160"`, `sys`, `tem`, `"touch " "p"`, `if (1)`, `else`, `&&`, `?`, `:`, `$0 ~`,
}

var sedFragments = []string{
	`1e touch p`, `e touch p`, `s/f/touch p/e`, `s/a/b/`, `/f/`, `\%f%`, `/[/]/`, `y/a/b/`, "a\\\n", `a foo`, "i\\\nbar\\",
	`{`, `}`, `;`, "\n", `!`, `1`, `$`, `0~1`, `p`, `d`, `n`, "#c\n", `s|f|x|`, `w q`, `:a`, `b a`, `t`, `e`, `1,2`,
	`/e touch q/`, `s/x/y/w q`, `c\`, `a\\`, `\`, `e\`, `r f`, `l 3`, `q`, `s/f/x/gpw q`, `/f/I`, `,`, `+1`, `T a`, `=`, `N`, ` `,
}

// TestProgramScannersAgreeWithRealAwkAndSed runs generated programs through
// the real awk and sed, with a touch that logs, and checks that every one
// that ran touch was read as running a command (or as unreadable). This
// is how the bugs below were found: sed's `:a e cmd` and `c\ ⏎e cmd`
// ran commands the reader had taken for a label and for text.
func TestProgramScannersAgreeWithRealAwkAndSed(t *testing.T) {
	t.Parallel()
	shims := t.TempDir()
	log := filepath.Join(shims, "log")
	if err := os.WriteFile(filepath.Join(shims, "touch"), []byte("#!/bin/sh\necho ran >> "+log+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		program string
		frags   []string
		scan    func(string) ([]langEffect, bool)
		args    func(string) []string
		wrap    func(*rand.Rand, string) string
	}{
		{"awk", awkFragments, scanAwk, func(p string) []string { return []string{p} }, func(r *rand.Rand, s string) string {
			if r.IntN(2) == 0 {
				return "BEGIN { " + s + " }"
			}
			return s
		}},
		{"sed", sedFragments, scanSed, func(p string) []string { return []string{"-e", p, "f"} }, func(_ *rand.Rand, s string) string { return s }},
	} {
		path, err := exec.LookPath(tt.program)
		if err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is not installed; CI must have it", tt.program)
			}
			t.Logf("%s is not installed; skipped", tt.program)
			continue
		}
		r := rand.New(rand.NewPCG(28, 1))
		ran, runs := 0, 300
		if testing.Short() {
			runs = 60
		}
		for range runs {
			var b strings.Builder
			for range 2 + r.IntN(5) {
				b.WriteString(tt.frags[r.IntN(len(tt.frags))])
				b.WriteString([]string{"", ";", "\n", " "}[r.IntN(4)])
			}
			src := tt.wrap(r, b.String())
			if !strings.Contains(src, "touch p") && r.IntN(2) == 0 {
				src += []string{"\ne touch p", "\nBEGIN { system(\"touch p\") }"}[map[string]int{"sed": 0, "awk": 1}[tt.program]]
			}
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "f"), []byte("f\nx\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			_ = os.Remove(log)
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			cmd := exec.CommandContext(ctx, path, tt.args(src)...)
			cmd.Dir = dir
			cmd.Env = []string{"PATH=" + shims + ":/usr/bin:/bin", "LC_ALL=C"}
			_ = cmd.Run()
			cancel()
			if _, err := os.Stat(log); err != nil {
				continue
			}
			ran++
			effects, ok := tt.scan(src)
			if !ok {
				continue
			}
			found := false
			for _, e := range effects {
				found = found || e.effect == runsUnknown || (e.effect == runsShell && (!e.static || strings.Contains(e.value, "touch p")))
			}
			if !found {
				t.Errorf("%s ran touch for %q, which the reader says runs nothing of it: %q", tt.program, src, effectsText(effects, ok))
			}
		}
		if ran < runs/20 {
			t.Errorf("only %d of %d %s programs ran touch: the generator no longer exercises the reader", ran, runs, tt.program)
		}
		t.Logf("%s: %d of %d generated programs ran touch, each read as running a command or unreadable", tt.program, ran, runs)
	}
}
