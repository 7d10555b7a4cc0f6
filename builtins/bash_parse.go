package builtins

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// shellCommand is one simple command found in a command line.
type shellCommand struct {
	// Text is the command's source text, with its variable assignments and
	// redirections: the permission pattern a person sees and rules match.
	Text string
	// Tokens are its words (name first), unquoted when they are static text
	// and left as written when they expand at run time.
	Tokens []string
	// args are the argument words, expanded later for path checks.
	args []*syntax.Word
}

// maxShellNesting bounds how deep `bash -c '...'` payloads are parsed; the
// outer command is always a pattern, so stopping is safe.
const maxShellNesting = 8

// shellInterpreters are the commands whose -c payload is itself a command
// line, parsed so every command inside it needs permission too.
var shellInterpreters = []string{"bash", "sh", "zsh", "dash", "ksh", "mksh", "ash"}

// pathCommands are the commands whose arguments are checked against the
// project: those that change directory, or read, create, move, remove or
// change files. Not exhaustive — other commands are still governed by their
// bash permission pattern.
var pathCommands = []string{"cd", "rm", "cp", "mv", "mkdir", "touch", "chmod", "chown", "cat"}

// parseShell returns every simple command of a command line: those in
// pipelines, && and || lists, subshells, blocks, functions, control
// structures, command and process substitutions, and — parsed recursively —
// the payloads of `bash -c '...'` (and other shells) and `eval '...'`.
// The outer command itself is included too, so approving `bash *` never
// approves what the payload runs.
//
// A command line that does not parse is an error: a person could not be
// shown what it runs, and the shell would most likely reject it too.
//
// It also returns the targets of file redirections (> < >> <> &> &>>) of
// every statement, which read or write files just as cat and cp do.
func parseShell(src string) ([]shellCommand, []*syntax.Word, error) {
	return parseShellDepth(src, 0)
}

// fileRedirects are the redirection operators whose word is a file path.
var fileRedirects = []syntax.RedirOperator{
	syntax.RdrOut, syntax.AppOut, syntax.RdrIn, syntax.RdrInOut,
	syntax.RdrClob, syntax.RdrAll, syntax.AppAll,
}

func parseShellDepth(src string, depth int) ([]shellCommand, []*syntax.Word, error) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		return nil, nil, fmt.Errorf("parse command: %w; fix the shell syntax and retry", err)
	}
	var redirects []*syntax.Word
	// Redirections belong to the statement, not the call; remember each
	// call's statement so its pattern can include them.
	stmtOf := map[*syntax.CallExpr]*syntax.Stmt{}
	var calls []*syntax.CallExpr
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Stmt:
			if c, ok := n.Cmd.(*syntax.CallExpr); ok {
				stmtOf[c] = n
			}
			for _, r := range n.Redirs {
				if r.Word != nil && slices.Contains(fileRedirects, r.Op) {
					redirects = append(redirects, r.Word)
				}
			}
		case *syntax.CallExpr:
			if len(n.Args) > 0 {
				calls = append(calls, n)
			}
		}
		return true
	})
	// Walk visits outer nodes first; source order reads better to a person.
	slices.SortStableFunc(calls, func(a, b *syntax.CallExpr) int {
		return int(a.Pos().Offset()) - int(b.Pos().Offset())
	})

	var out []shellCommand
	for _, c := range calls {
		start, end := c.Pos().Offset(), c.End().Offset()
		if s := stmtOf[c]; s != nil {
			for _, r := range s.Redirs {
				start, end = min(start, r.Pos().Offset()), max(end, r.End().Offset())
			}
		}
		cmd := shellCommand{Text: strings.TrimSpace(src[start:end]), args: c.Args[1:]}
		for _, w := range c.Args {
			cmd.Tokens = append(cmd.Tokens, wordToken(w, src))
		}
		out = append(out, cmd)

		if depth >= maxShellNesting {
			continue
		}
		if payload, ok := nestedPayload(cmd.Tokens, c.Args); ok {
			inner, innerRedirects, err := parseShellDepth(payload, depth+1)
			if err != nil {
				return nil, nil, fmt.Errorf("in %q: %w", cmd.Text, err)
			}
			out = append(out, inner...)
			redirects = append(redirects, innerRedirects...)
		}
	}
	return out, redirects, nil
}

// nestedPayload returns the command line a command runs as a string: the
// argument after -c (or a flag group containing c, like -lc) of a shell, or
// the joined arguments of eval. Payloads that expand at run time cannot be
// read in advance; the outer command's own pattern covers them.
func nestedPayload(tokens []string, words []*syntax.Word) (string, bool) {
	if len(tokens) < 2 {
		return "", false
	}
	if tokens[0] == "eval" {
		var parts []string
		for _, w := range words[1:] {
			s, ok := staticWord(w)
			if !ok {
				return "", false
			}
			parts = append(parts, s)
		}
		return strings.Join(parts, " "), true
	}
	if !slices.Contains(shellInterpreters, path.Base(tokens[0])) {
		return "", false
	}
	hasC := false
	for i, t := range tokens[1:] {
		if strings.HasPrefix(t, "-") && len(t) > 1 && !strings.HasPrefix(t, "--") {
			hasC = hasC || strings.Contains(t[1:], "c")
			continue
		}
		if !hasC {
			return "", false // a script file, not a command string
		}
		return staticWord(words[i+1])
	}
	return "", false
}

// staticWord returns a word's value when it is fixed text (plain, quoted,
// escaped; a glob counts as text), and false when it expands at run time
// ($VAR, $(...), $'...').
func staticWord(w *syntax.Word) (string, bool) {
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
		case *syntax.SglQuoted:
			if p.Dollar {
				return "", false
			}
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if _, ok := q.(*syntax.Lit); !ok {
					return "", false
				}
			}
		default:
			return "", false
		}
	}
	s, err := expand.Literal(&expand.Config{}, w)
	if err != nil {
		return "", false
	}
	return s, true
}

// wordToken is a word as an arity token: its static value, or its source
// text when it expands at run time.
func wordToken(w *syntax.Word, src string) string {
	if s, ok := staticWord(w); ok {
		return s
	}
	return src[w.Pos().Offset():w.End().Offset()]
}

// bashRequests are the permission requests a command line needs.
type bashRequests struct {
	Patterns []string // one per simple command (cd excluded), deduplicated
	Always   []string // their arity prefixes + " *"
	// ExternalDirs are directories outside the project that the command
	// line names: as an argument of a path command, as the target of a
	// file redirection, or as workdir.
	ExternalDirs []string
}

// bashPermissions computes what a command line running in workdir must be
// allowed. inProject reports whether an absolute path lies in the project.
func bashPermissions(command, workdir string, inProject func(string) bool) (bashRequests, error) {
	cmds, redirects, err := parseShell(command)
	if err != nil {
		return bashRequests{}, err
	}
	var r bashRequests
	addDir := func(dir string) {
		if !slices.Contains(r.ExternalDirs, dir) {
			r.ExternalDirs = append(r.ExternalDirs, dir)
		}
	}
	if !inProject(workdir) {
		addDir(workdir)
	}
	checkPath := func(p string) {
		abs := p
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(workdir, abs)
		}
		abs = filepath.Clean(abs)
		if inProject(abs) {
			return
		}
		if st, err := os.Stat(abs); err == nil && st.IsDir() {
			addDir(abs)
		} else {
			addDir(filepath.Dir(abs))
		}
	}
	env := expand.ListEnviron(append(os.Environ(), "PWD="+workdir)...)
	for _, c := range cmds {
		if slices.Contains(pathCommands, c.Tokens[0]) {
			for _, p := range pathArgs(c.args, c.Tokens[0], env) {
				checkPath(p)
			}
		}
		// cd changes only the shell's own directory; its target was checked
		// above, and every command it leads to has its own pattern.
		if c.Tokens[0] == "cd" {
			continue
		}
		if !slices.Contains(r.Patterns, c.Text) {
			r.Patterns = append(r.Patterns, c.Text)
		}
		if a := alwaysPattern(c.Tokens); !slices.Contains(r.Always, a) {
			r.Always = append(r.Always, a)
		}
	}
	for _, p := range pathArgs(redirects, "", env) {
		// Devices (/dev/null, /dev/stderr) are where output is thrown
		// away or passed on, not files of another project.
		if p == "/dev" || strings.HasPrefix(p, "/dev/") {
			continue
		}
		checkPath(p)
	}
	return r, nil
}

// pathArgs expands a path command's arguments as the shell would (quotes,
// ~, $VAR, {a,b}; no globbing, so a pattern stays a path in its directory),
// skipping flags and chmod's +x style modes. Arguments with command
// substitutions cannot be known in advance and are skipped: the
// substituted command has its own pattern.
func pathArgs(words []*syntax.Word, command string, env expand.Environ) []string {
	var out []string
	for _, w := range words {
		fields, err := expandFields(env, w)
		if err != nil {
			continue
		}
		for _, f := range fields {
			if f == "" || strings.HasPrefix(f, "-") || (command == "chmod" && strings.HasPrefix(f, "+")) {
				continue
			}
			out = append(out, f)
		}
	}
	return out
}

// externalGlob is the rule pattern for everything in dir.
func externalGlob(dir string) string {
	return strings.TrimRight(dir, string(filepath.Separator)) + string(filepath.Separator) + "*"
}

var errRunTimeExpansion = errors.New("expands only at run time")

// expandFields expands a word without running anything: command and
// process substitutions are errors. The expander is a guard in front of
// every bash call, so a panic inside it (fuzzing found one for process
// substitutions with a nil handler) becomes an error, not a crash.
func expandFields(env expand.Environ, w *syntax.Word) (fields []string, err error) {
	defer func() {
		if v := recover(); v != nil {
			fields, err = nil, fmt.Errorf("expand %v: %v", w, v)
		}
	}()
	return expand.Fields(&expand.Config{
		Env:       env,
		ProcSubst: func(*syntax.ProcSubst) (string, error) { return "", errRunTimeExpansion },
	}, w)
}
