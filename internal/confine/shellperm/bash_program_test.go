//go:build unix

package shellperm

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// effectsText renders scanner results for comparison: "run CMD", "run ?"
// (a command not fixed), "write F", "write ?", "unknown", or "unreadable".
func effectsText(effects []langEffect, ok bool) []string {
	if !ok {
		return []string{"unreadable"}
	}
	out := []string{}
	for _, e := range effects {
		v := e.value
		if !e.static {
			v = "?"
		}
		switch e.effect {
		case runsShell:
			out = append(out, "run "+v)
		case writesFile:
			out = append(out, "write "+v)
		default:
			out = append(out, "unknown")
		}
	}
	return out
}

func TestScanAwkFindsWhatAProgramRunsAndWrites(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, program string
		want          []string
	}{
		{"a program that only prints runs nothing", `{ print $1 }`, []string{}},
		{"system with a fixed string runs that command", `BEGIN { system("touch p") }`, []string{"run touch p"}},
		{"a space before system's parenthesis changes nothing", `BEGIN { system ("touch p") }`, []string{"run touch p"}},
		{"joined fixed strings are one command", `BEGIN { system("touch " "p") }`, []string{"run touch p"}},
		{"an octal escape is decoded", `BEGIN { system("touch \160") }`, []string{"run touch p"}},
		{"a NUL escape ends the command early, so it is not fixed", `BEGIN { system("rm x\0 y") }`, []string{"run ?"}},
		{"a hex escape, read differently by different awks, is not fixed", `BEGIN { system("touch \x70") }`, []string{"run ?"}},
		{"system of a variable is not fixed", `{ system($0) }`, []string{"run ?"}},
		{"system inside a string is text", `{ print "system(\"touch p\")" }`, []string{}},
		{"system inside a regex is text", `/system("touch p")/`, []string{}},
		{"system in a comment is text", "# system(\"x\")\n{ print }", []string{}},
		{"output piped to a command runs it", `{ print | "sort -u" }`, []string{"run sort -u"}},
		{"a command piped to getline runs it", `BEGIN { "date" | getline d }`, []string{"run date"}},
		{"a getline command joined to a string before it is not fixed", `BEGIN { "a" "date" | getline }`, []string{"run ?"}},
		{"a coprocess runs its command", `BEGIN { "date" |& getline; print "x" |& "cat" }`, []string{"run date", "run cat"}},
		{"print to a file writes it", `{ print > "out.txt" }`, []string{"write out.txt"}},
		{"append to a file writes it", `{ print >> "log" }`, []string{"write log"}},
		{"a print continued after a comma still writes", "{ print \"a\",\n\"b\" > \"f\" }", []string{"write f"}},
		{"a file named by an expression is unknown", `{ print > $1 ".txt" }`, []string{"write ?"}},
		{"a comparison in parentheses is not a redirection", `{ print ($1 > 2) }`, []string{}},
		{"a comparison in a condition is not a redirection", `$1 > 2 { print }`, []string{}},
		{"a getline from a file reads it", `BEGIN { while ((getline l < "f") > 0) print l }`, []string{}},
		{"gawk's indirect call is unknown", `BEGIN { f = "system"; @f("x") }`, []string{"unknown"}},
		{"gawk's @include is unknown", `@include "lib.awk"`, []string{"unknown"}},
		{"gawk's @namespace runs nothing", `@namespace "x"`, []string{}},
		{"a continuation that joins a word is unreadable", "BEGIN { sys\\\ntem(\"x\") }", []string{"unreadable"}},
		{"a continuation between words is read", "BEGIN { system(\\\n\"x\") }", []string{"run x"}},
		{"a division is not a regex", `BEGIN { x = 1 / 2; system("x"); y = 3 / 4 }`, []string{"run x"}},
		{"length then a slash is unreadable: mawk reads a regex there", `{ print length /"/; system("x"); y = "/" }`, []string{"unreadable"}},
		{"a slash in a bracket is unreadable", `/[/"]/; system("x"); y = "/`, []string{"unreadable"}},
		{"a character class ends where it ends", `/[[:alpha:]]/ { system("x") }`, []string{"run x"}},
		{"an unterminated string is unreadable", `BEGIN { print "x }`, []string{"unreadable"}},
		{"system not called is unreadable", `BEGIN { x = system }`, []string{"unreadable"}},
		{"a stray backslash is unreadable", `BEGIN { x = \ 1 }`, []string{"unreadable"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := effectsText(scanAwk(tt.program)); !slices.Equal(got, tt.want) {
				t.Errorf("scanAwk(%q) = %q, want %q", tt.program, got, tt.want)
			}
		})
	}
}

func TestScanSedFindsWhatAScriptRunsAndWrites(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, script string
		want         []string
	}{
		{"a substitution runs nothing", `s/a/b/g`, []string{}},
		{"the e command runs its command", `1e touch p`, []string{"run touch p"}},
		{"a bare e runs the pattern space", `1e`, []string{"run ?"}},
		{"an e command continued past a backslash is not fixed", "1e\\\ntouch p", []string{"run ?"}},
		{"the e flag runs the pattern space", `s/a/touch p/e`, []string{"run ?"}},
		{"another delimiter is followed", `s|a|b|e`, []string{"run ?"}},
		{"an e inside a regex is text", `/e touch p/p`, []string{}},
		{"a delimiter in a bracket does not end the regex", `/[/ a x]/e touch p`, []string{"run touch p"}},
		{"a custom address delimiter is followed", `\%[%]%e touch p`, []string{"run touch p"}},
		{"a step address is read", `0~3e touch p`, []string{"run touch p"}},
		{"negation and blocks are read", "1!{e touch p\n}", []string{"run touch p"}},
		{"commands after a semicolon are read", `s/x/y/;e touch p`, []string{"run touch p"}},
		{"appended text is text", "a\\\ne touch p", []string{}},
		{"appended text continues after a backslash", "a foo\\\ne touch p\ne touch q", []string{"run touch q"}},
		{"the w command writes its file", `w out.txt`, []string{"write out.txt"}},
		{"the w flag writes its file", `s/a/b/w out.txt`, []string{"write out.txt"}},
		{"writing to standard output writes nothing", `w /dev/stdout`, []string{}},
		{"y reads its two parts", `y/abc/xyz/;1e touch p`, []string{"run touch p"}},
		{"a label ends at a semicolon", `:a;e touch p`, []string{"run touch p"}},
		{"a label ends at a blank, and a command follows it", `:a e touch p`, []string{"run touch p"}},
		{"a branch's label ends at a blank", `b a s/f/touch p/e`, []string{"run ?"}},
		{"text after a\\ starts at the next character", "c\\ \ne touch p", []string{"run touch p"}},
		{"the character after a\\ is text as it is, a backslash too", "a\\\\\ne touch p", []string{"run touch p"}},
		{"an unknown command is unreadable", `1k`, []string{"unreadable"}},
		{"an unknown s flag is unreadable", `s/a/b/k`, []string{"unreadable"}},
		{"an unterminated regex is unreadable", `/abc`, []string{"unreadable"}},
		{"a backslash in a bracket is unreadable", `/[\/]/e x`, []string{"unreadable"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := effectsText(scanSed(tt.script)); !slices.Equal(got, tt.want) {
				t.Errorf("scanSed(%q) = %q, want %q", tt.script, got, tt.want)
			}
		})
	}
}

// TestBashProgramReasons: the requests a program's arguments add say why,
// which `toolhost permissions explain` shows.
func TestBashProgramReasons(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ command, pattern, reason string }{
		{`awk 'BEGIN{system("touch p")}'`, "touch p", "awk's system()"},
		{`tar -xf a.tar --to-command='touch p'`, "touch p", "tar runs this with sh -c"},
		{`git -c alias.x='!touch p' x`, "touch p", "git alias"},
		{`sed 's/a/b/e' f`, "sed s/a/b/e f", "pattern space"},
		{`echo x > s; sh s`, "sh s", "as a script"},
	} {
		reqs, err := Requests(tt.command, "/project", "/project", inFakeProject)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		for _, r := range reqs {
			if reasons, ok := r.Metadata["reasons"].(map[string]string); ok {
				got = reasons[tt.pattern]
			}
		}
		if !strings.Contains(got, tt.reason) {
			t.Errorf("%s: reason for %q = %q, want it to say %q", tt.command, tt.pattern, got, tt.reason)
		}
	}
}

// FuzzScanAwk: the awk scanner never panics, and a system() call on a
// line of its own after any program it can read is always found: whatever
// the program, once it reads as closed, nothing it holds can hide what
// follows.
func FuzzScanAwk(f *testing.F) {
	for _, s := range []string{`{ print $1 }`, `BEGIN { system("x") }`, `/a|b/ { print > "f" }`, `"date" | getline`, `x = 1 / 2`, `/[[:alpha:]]/`, "a\\\nb", `@f()`, `print length /x/`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if _, ok := scanAwk(src); !ok {
			return
		}
		effects, ok := scanAwk(src + "\nBEGIN { system(\"touch zz\") }")
		if !ok {
			return
		}
		for _, e := range effects {
			if e.effect == runsShell && (!e.static || e.value == "touch zz") || e.effect == runsUnknown {
				return
			}
		}
		t.Errorf("the system() call after %q was not found: %s", src, fmt.Sprint(effectsText(effects, ok)))
	})
}

// FuzzScanSed: the sed scanner never panics, and an e command on a line of
// its own after a script it can read is found, unless the script ends in
// text that continues onto the next line (a\ with a trailing backslash).
func FuzzScanSed(f *testing.F) {
	for _, s := range []string{`s/a/b/g`, `1e x`, `/[/]/p`, `\%a%d`, "a\\\nfoo", `y/ab/cd/`, `:a;N;ba`, `s/a/b/w f`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if _, ok := scanSed(src); !ok || strings.Contains(src, `\`) {
			return
		}
		effects, ok := scanSed(src + "\ne touch zz")
		if !ok {
			return
		}
		for _, e := range effects {
			if e.effect == runsShell && (!e.static || e.value == "touch zz") {
				return
			}
		}
		// a, i and c read to the end of their line; a line without a
		// backslash cannot continue, so the e line is a command.
		t.Errorf("the e command after %q was not found: %q", src, effectsText(effects, ok))
	})
}
