package shellperm

import (
	"slices"
	"strings"
)

// Programs whose way of running commands needs more than the option table:
// ssh -o options, sqlite3 dot-commands and socat addresses.

// sshOption judges an ssh -o "Key=Value" or "Key Value".
func (a *analyzer) sshOption(outer string, v token) {
	if !v.known() {
		a.hole(outer, "the ssh option is not fixed text, and could name a command (ProxyCommand)")
		return
	}
	s := strings.TrimSpace(v.value)
	i := strings.IndexAny(s, "= \t")
	if i < 0 {
		return
	}
	key, val := strings.ToLower(s[:i]), strings.TrimLeft(s[i:], "= \t")
	opt, ok := sshKeys[key]
	if !ok {
		return
	}
	if opt.effect == runsShell && strings.Contains(val, "%") {
		a.hole(outer, opt.why+"; ssh replaces its %-tokens first")
		return
	}
	a.applyOption(outer, opt, token{value: val, display: val}, 0)
}

// sqlite judges sqlite3: dot-commands (.shell, .system, .output, .load)
// and SQL functions that load code or write files (load_extension,
// writefile, edit) run or write what they name; without SQL operands it
// reads them from standard input, and -init from a file.
func (a *analyzer) sqlite(outer string, args []token, _ int) {
	const why = "sqlite3 runs dot-commands (.shell, .system) and functions that load code or write files (load_extension, writefile)"
	sql := 0
	for i := 0; i < len(args); i++ {
		t := args[i]
		v := t.value
		switch {
		case !t.known():
			a.hole(outer, why+"; an argument is not fixed text")
			return
		case v == "-init" || v == "--init":
			a.hole(outer, "sqlite3 runs the commands of this file")
			return
		case v == "-cmd" || v == "--cmd":
			if i+1 < len(args) && sqliteRuns(args[i+1].value) {
				a.hole(outer, why)
				return
			}
			i++
		case strings.HasPrefix(v, "-"):
			if slices.Contains([]string{"-separator", "-newline", "-nullvalue", "-vfs", "-maxsize", "-pagecache", "-lookaside", "-mmap", "-heap"}, strings.TrimPrefix(v, "-")) || slices.Contains([]string{"--separator", "--newline", "--nullvalue", "--vfs", "--maxsize"}, v) {
				i++
			}
		default:
			sql++
			if sql > 1 && sqliteRuns(v) {
				a.hole(outer, why)
				return
			}
		}
	}
	if sql < 2 {
		a.hole(outer, "sqlite3 reads SQL and dot-commands, .shell among them, from standard input")
	}
}

// sqliteRuns: a line starting with a dot, a function that loads code or
// writes files, or a statement that writes another file (ATTACH, VACUUM
// INTO).
func sqliteRuns(s string) bool {
	l := strings.ToLower(s)
	for _, line := range strings.Split(l, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), ".") {
			return true
		}
	}
	return strings.Contains(l, "load_extension") || strings.Contains(l, "writefile") || strings.Contains(l, "edit(") || strings.Contains(l, "fts3_tokenizer") || strings.Contains(l, "attach") || strings.Contains(l, "vacuum")
}

// socat runs a command for an EXEC: or SYSTEM: address (and their
// abbreviations), which can be anywhere among its operands.
func (a *analyzer) socat(outer string, args []token, _ int) {
	for _, t := range args {
		v := strings.ToUpper(t.value)
		if !t.known() || strings.Contains(v, "EXEC") || strings.Contains(v, "SYSTEM") {
			a.hole(outer, "socat runs the command of an EXEC: or SYSTEM: address")
			return
		}
	}
}
