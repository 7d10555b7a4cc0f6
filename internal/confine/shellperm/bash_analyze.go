package shellperm

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"github.com/toolhost/toolhost/runtime/permission"
)

// The bash analysis decides on what bash will actually execute, not on the
// text a model wrote. It parses the command line with mvdan.cc/sh and, for
// every construct that can run a program or change what a program does,
// produces a permission request:
//
//   - bash: one pattern per simple command, made of its words after quote
//     removal (`r""m f`, `\rm f` and `'rm' f` are all "rm f"); assignment
//     prefixes and redirections are not part of it. Wrappers (command, env,
//     timeout, xargs, sudo, … in bashWrappers) are unwrapped and the wrapped
//     command is a request of its own; a path-qualified command (/bin/rm) is
//     asked by its own text and by its base name. Payloads that are command
//     lines (bash -c, eval, trap, alias, env -S, find -exec) are parsed too.
//   - bash "export NAME=VALUE": setting a variable that changes what other
//     programs execute (dangerousEnv), by any means.
//   - external_directory: paths outside the project named by cd, by the path
//     commands' operands and by redirections, after symlinks are resolved
//     the way the kernel resolves them.
//   - edit: every file a redirection writes, so an agent whose edits are
//     denied cannot write with `echo >`.
//
// What cannot be known before the command runs — a command word from a
// variable, a redirection target from a command substitution, arithmetic on
// a variable's value, ${x@P} — becomes a Hole in the request's template
// (permission.Request.Unresolved). A Hole is matched only by a star, so an
// allow list never allows what it cannot see, while a deny that might apply
// still denies. Constructs that evaluate text as code (arithmetic on
// variables, subscripts, indirect and prompt expansion) make their whole
// command one Hole, even when they appear in a line of only assignments,
// tests or declarations, which used to ask nothing.
//
// The analysis is a guard, not a proof: the kernel sandbox (internal/confine/sandbox)
// is what finally confines writes. docs/security.md says what each layer
// guarantees.

// maxShellNesting bounds how deep payloads (bash -c '...', eval) are parsed;
// deeper payloads are unresolvable.
const maxShellNesting = 8

// maxWrapperDepth bounds how many wrappers are unwrapped from one command.
const maxWrapperDepth = 16

// maxNesting bounds how deeply parentheses and braces may nest in a command
// line. The parser's cost grows steeply with depth (20,000 nested "(" took
// seconds), and no command a person would approve nests this deep.
const maxNesting = 200

// maxBraceFields bounds the words one brace expansion may produce before it
// is treated as unknown rather than expanded: {a,b}{a,b}… doubles with
// every pair, and {1..99999999} is a few bytes.
const maxBraceFields = 1024

// maxWorkdirs bounds the directories a relative path is resolved against.
// Every cd may or may not have run (cd a || cd b), so each one can double
// the candidates; past this bound the shell's directory is unknown and
// relative paths are holes. Without it, twelve cds took a minute.
const maxWorkdirs = 32

// bashScope is where a command line runs.
type bashScope struct {
	Workdir  string // the shell's starting directory
	Worktree string // the project root, for edit patterns
	// InProject reports whether a resolved absolute path lies in the
	// project.
	InProject func(string) bool
}

// bashCommandReq is one request of the bash permission.
type bashCommandReq struct {
	Pattern  string // what a person sees and, when Template is "", what rules match
	Template string // with permission.Hole for what is unknown; "" when resolved
	Always   string // the "always" pattern; "" for none
	// Reason says why a request was made that the command line does not
	// show as a command of its own: the program that runs it (awk's
	// system(), tar --to-command), or why it is a Hole.
	Reason string
}

// bashPath is a path the command line touches.
type bashPath struct {
	Abs   string // resolved absolute path; "" when unresolvable
	Text  string // the word as written, shown when unresolvable
	Write bool   // written (redirection), so also an edit request
	IsDir bool   // a directory itself (cd), not a file in one
}

// bashAnalysis is everything a command line needs permission for.
type bashAnalysis struct {
	Commands []bashCommandReq
	Paths    []bashPath
	// Workdirs are the directories relative paths may be resolved
	// against: the workdir and every cd target.
	workdirs   []string
	cwdUnknown bool // some cd target cannot be known
	// readsFile: some redirection opens a file for reading, so a
	// descriptor may be a file, and writing to /dev/stdin, /dev/fd/N … —
	// which opens the descriptor's file anew, for writing — writes it.
	readsFile bool
	// resolved memoizes resolveOnDisk: a long command line names the same
	// paths against the same directories many times.
	resolved map[string]string
	// commandIndex and pathIndex find a request already made, so a long
	// command line costs time linear in its length.
	commandIndex map[string]int
	pathIndex    map[bashPath]bool
	// execs are the files the command line runs as programs or scripts
	// (./s, python3 s.py): one the line itself writes or names as a
	// path (echo … > s; chmod +x s; ./s) has contents no one was shown.
	execs []execRef
	// pathSet: the line sets PATH, so a bare command name may find a
	// file the line wrote.
	pathSet bool
	// named are the resolved paths the line names other than by cd.
	named map[string]bool
	// copied are the resolved operands of cp, mv, ln and install, which
	// may be where they put a file (cp h r/.git/hooks/); copiedUnknown:
	// one of them is not fixed text.
	copied        map[string]bool
	copiedUnknown bool
}

// execRef is a file run as a program or script: where it may be, and the
// request that runs it.
type execRef struct {
	cands   []string
	pattern string
	// anyGitDir: git, which runs hooks and obeys configuration found
	// in any .git directory it is pointed at.
	anyGitDir bool
	// pathName is a bare name looked up through PATH (git l runs
	// git-l), which a line that sets PATH may have written.
	pathName string
}

// resolve is resolveOnDisk, memoized for the analysis.
func (an *bashAnalysis) resolve(p string) string {
	if r, ok := an.resolved[p]; ok {
		return r
	}
	if an.resolved == nil {
		an.resolved = map[string]string{}
	}
	r := resolveOnDisk(p)
	an.resolved[p] = r
	return r
}

// addPath records a path once.
func (an *bashAnalysis) addPath(p bashPath) {
	if an.pathIndex[p] {
		return
	}
	if an.pathIndex == nil {
		an.pathIndex = map[bashPath]bool{}
	}
	an.pathIndex[p] = true
	an.Paths = append(an.Paths, p)
}

// analyzeBash parses a command line and collects its requests. A command
// line that does not parse, or that holds a NUL byte, is an error: a person
// could not be shown what it runs.
func analyzeBash(command string, scope bashScope) (*bashAnalysis, error) {
	if strings.ContainsRune(command, 0) {
		return nil, errors.New("parse command: the command contains a NUL byte, which no shell command can hold; remove it")
	}
	if d := nestingDepth(command); d > maxNesting {
		return nil, fmt.Errorf("parse command: parentheses and braces nest %d deep, more than the %d the analysis reads; split the command into simpler ones", d, maxNesting)
	}
	out := &bashAnalysis{workdirs: []string{scope.Workdir}}
	if err := analyzeInto(out, command, scope, 0); err != nil {
		return nil, err
	}
	out.scriptsWritten()
	return out, nil
}

var shellParser = syntax.Variant(syntax.LangBash)

// nestingDepth is how deeply "(" and "{" nest in src, quotes ignored: an
// upper bound of the nesting the parser will meet, found in linear time.
func nestingDepth(src string) int {
	depth, deepest := 0, 0
	for i := 0; i < len(src); i++ {
		switch src[i] {
		case '(', '{':
			depth++
			deepest = max(deepest, depth)
		case ')', '}':
			depth = max(depth-1, 0)
		}
	}
	return deepest
}

func analyzeInto(out *bashAnalysis, src string, scope bashScope, depth int) error {
	f, err := syntax.NewParser(shellParser).Parse(strings.NewReader(src), "")
	if err != nil {
		return fmt.Errorf("parse command: %w; fix the shell syntax and retry", err)
	}
	a := &analyzer{src: src, scope: scope, depth: depth, out: out, evaluating: map[syntax.Node]bool{}, timed: map[*syntax.CallExpr]bool{}}
	// A tilde means $HOME, which the command line may set in ways too many
	// to follow (assignment, read, for, declare …): if it names HOME at
	// all, a tilde is unknown.
	a.homeAssigned = strings.Contains(src, "HOME")
	a.prescan(f)
	a.walk(f)
	return a.err
}

type analyzer struct {
	src   string
	scope bashScope
	depth int
	out   *bashAnalysis
	err   error

	homeAssigned bool
	expand       *expand.Config
	// evaluating are the nodes (a simple command, or a clause) that hold a
	// construct which evaluates text as code; their request is one Hole.
	evaluating map[syntax.Node]bool
	// timed are the commands of time clauses.
	timed map[*syntax.CallExpr]bool
}

func (a *analyzer) text(n syntax.Node) string {
	s, e := int(n.Pos().Offset()), int(n.End().Offset())
	if s < 0 || e > len(a.src) || s > e {
		return ""
	}
	return a.src[s:e]
}

// prescan finds, before any request is made, the facts that change how
// words resolve: whether HOME is assigned (tilde then means something else),
// every cd target, and the constructs that evaluate text as code.
func (a *analyzer) prescan(f *syntax.File) {
	var stack []syntax.Node
	syntax.Walk(f, func(n syntax.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		stack = append(stack, n)
		if a.evaluates(n) {
			a.evaluating[owner(stack)] = true
		}
		switch n := n.(type) {
		case *syntax.TimeClause:
			// bash's time takes -p and "--" before the command; the
			// parser leaves "--" as the command word.
			if n.Stmt != nil {
				if c, ok := n.Stmt.Cmd.(*syntax.CallExpr); ok {
					a.timed[c] = true
				}
			}
		case *syntax.Redirect:
			if n.Op == syntax.RdrIn && !onlyProcSubst(n.Word) {
				a.out.readsFile = true
			}
		case *syntax.CallExpr:
			if len(n.Args) > 0 {
				if s, ok := staticString(n.Args[0]); ok && (s == "cd" || s == "pushd") {
					a.cdTarget(n.Args[1:])
				}
			}
		}
		return true
	})
}

// owner is the node whose request a construct found at the top of stack
// belongs to: the nearest simple command or clause.
func owner(stack []syntax.Node) syntax.Node {
	for i := len(stack) - 1; i >= 0; i-- {
		switch stack[i].(type) {
		case *syntax.CallExpr, *syntax.DeclClause, *syntax.TestClause, *syntax.ArithmCmd,
			*syntax.LetClause, *syntax.ForClause, *syntax.CaseClause, *syntax.Stmt:
			return stack[i]
		}
	}
	return stack[0]
}

// cdTarget records a cd or pushd target as a directory later relative
// paths may be resolved against.
func (a *analyzer) cdTarget(args []*syntax.Word) {
	var target *syntax.Word
	for _, w := range args {
		s, ok := staticString(w)
		if ok && strings.HasPrefix(s, "-") && s != "-" {
			continue // -P, -L, -e
		}
		if ok && (s == "-" || strings.HasPrefix(s, "+")) {
			// $OLDPWD or the directory stack: in a fresh shell they may
			// come from toolhost's environment.
			a.out.cwdUnknown = true
			return
		}
		target = w
		break
	}
	if target == nil {
		if a.homeAssigned {
			a.out.cwdUnknown = true
			return
		}
		if home, err := os.UserHomeDir(); err == nil {
			a.addWorkdir(home)
		}
		return
	}
	t := a.token(target)
	if !t.known() || t.glob || t.braces {
		a.out.cwdUnknown = true
		return
	}
	p := t.value
	if a.out.cwdUnknown && !filepath.IsAbs(p) {
		return // relative to a directory already unknown
	}
	for _, wd := range a.out.workdirs {
		a.addWorkdir(a.out.resolve(joinUnclean(wd, p)))
		if filepath.IsAbs(p) {
			break
		}
	}
}

func (a *analyzer) addWorkdir(d string) {
	if slices.Contains(a.out.workdirs, d) {
		return
	}
	if len(a.out.workdirs) >= maxWorkdirs {
		a.out.cwdUnknown = true
		return
	}
	a.out.workdirs = append(a.out.workdirs, d)
}

// walk makes the requests.
func (a *analyzer) walk(f *syntax.File) {
	syntax.Walk(f, func(n syntax.Node) bool {
		if a.err != nil {
			return false
		}
		switch n := n.(type) {
		case *syntax.Stmt:
			a.redirects(n)
			if a.evaluating[n] {
				a.unresolvedCommand(a.text(n))
			}
		case *syntax.CallExpr:
			a.call(n)
		case *syntax.DeclClause:
			a.decl(n)
		case *syntax.ForClause:
			if wi, ok := n.Loop.(*syntax.WordIter); ok && isDangerousEnv(wi.Name.Value) {
				a.env(wi.Name.Value, permission.Hole, "(for)")
			}
			if a.evaluating[n] {
				a.unresolvedCommand(clip(a.text(n)))
			}
		case *syntax.TestClause, *syntax.ArithmCmd, *syntax.LetClause, *syntax.CaseClause:
			if a.evaluating[n] {
				a.unresolvedCommand(a.text(n))
			}
		case *syntax.ParamExp:
			// ${PATH:=/x} and ${PATH=/x} assign.
			if n.Param != nil && n.Exp != nil && (n.Exp.Op == syntax.AssignUnset || n.Exp.Op == syntax.AssignUnsetOrNull) && isDangerousEnv(n.Param.Value) {
				a.env(n.Param.Value, permission.Hole, a.text(n))
			}
		}
		return true
	})
}

// clip shortens a long construct for display.
func clip(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

func (a *analyzer) unresolvedCommand(display string) {
	a.addCommand(bashCommandReq{Pattern: clip(display), Template: permission.Hole})
}

// addCommand adds a bash request once; the same pattern twice keeps the
// stricter template: a template beats text, and two different templates
// shown alike (`x '$y' $z` and `x $y '$z'`) become one Hole, since a rule
// may tell them apart.
func (a *analyzer) addCommand(r bashCommandReq) {
	if i, ok := a.out.commandIndex[r.Pattern]; ok {
		c := &a.out.Commands[i]
		if c.Reason == "" {
			c.Reason = r.Reason
		}
		switch {
		case r.Template == "" || r.Template == c.Template:
		case c.Template == "":
			c.Template, c.Always = r.Template, ""
		default:
			c.Template, c.Always = permission.Hole, ""
		}
		return
	}
	if a.out.commandIndex == nil {
		a.out.commandIndex = map[string]int{}
	}
	a.out.commandIndex[r.Pattern] = len(a.out.Commands)
	a.out.Commands = append(a.out.Commands, r)
}
