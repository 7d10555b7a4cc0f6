package builtins

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
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
// The analysis is a guard, not a proof: the kernel sandbox (internal/sandbox)
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

// evaluates reports whether n makes bash evaluate text as code beyond what
// the parse shows: arithmetic on anything but numbers (a variable's value is
// itself evaluated, so x='a[$(cmd)]' runs cmd), subscripts, indirect and
// prompt expansion, integer and nameref declarations.
func (a *analyzer) evaluates(n syntax.Node) bool {
	switch n := n.(type) {
	case *syntax.ArithmExp:
		return !numericArith(n.X)
	case *syntax.ArithmCmd:
		return !numericArith(n.X)
	case *syntax.LetClause:
		for _, x := range n.Exprs {
			if !numericArith(x) {
				return true
			}
		}
	case *syntax.CStyleLoop:
		for _, x := range []syntax.ArithmExpr{n.Init, n.Cond, n.Post} {
			if x != nil && !numericArith(x) {
				return true
			}
		}
	case *syntax.ParamExp:
		switch {
		case n.Index != nil && !literalSubscript(n.Index):
			return true
		case n.Slice != nil && (!numericArith(n.Slice.Offset) || (n.Slice.Length != nil && !numericArith(n.Slice.Length))):
			return true
		case n.Excl && n.Names == 0 && n.Index == nil:
			return true // ${!x}: the value of x names what to expand
		case n.Exp != nil && n.Exp.Op == syntax.OtherParamOps:
			return true // ${x@P} and the other @ transformations
		}
	case *syntax.Assign:
		if n.Index != nil && !literalSubscript(n.Index) {
			return true
		}
		if n.Array != nil {
			for _, e := range n.Array.Elems {
				if e.Index != nil && !literalSubscript(e.Index) {
					return true
				}
			}
		}
	case *syntax.TestClause:
		return evaluatingTest(n.X)
	case *syntax.DeclClause:
		return evaluatingDecl(n)
	}
	return false
}

// numericArith reports whether an arithmetic expression holds only numbers
// and operators, so evaluating it cannot read a variable or run anything.
func numericArith(x syntax.ArithmExpr) bool {
	switch x := x.(type) {
	case nil:
		return true
	case *syntax.Word:
		s, ok := staticString(x)
		return ok && isShellNumber(s)
	case *syntax.BinaryArithm:
		return numericArith(x.X) && numericArith(x.Y)
	case *syntax.UnaryArithm:
		if x.Op == syntax.Inc || x.Op == syntax.Dec {
			return false
		}
		return numericArith(x.X)
	case *syntax.ParenArithm:
		return numericArith(x.X)
	}
	return false
}

var shellNumber = regexp.MustCompile(`^\s*(0[xX][0-9a-fA-F]+|[0-9]+#[0-9a-zA-Z@_]+|[0-9]+)\s*$`)

func isShellNumber(s string) bool { return shellNumber.MatchString(s) }

// literalSubscript: an index that is a number, or @ / * (the whole array).
func literalSubscript(x syntax.ArithmExpr) bool {
	w, ok := x.(*syntax.Word)
	if !ok {
		return numericArith(x)
	}
	s, ok := staticString(w)
	return ok && (s == "@" || s == "*" || isShellNumber(s))
}

var arithTestOps = []syntax.BinTestOperator{syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr}

func evaluatingTest(x syntax.TestExpr) bool {
	switch x := x.(type) {
	case *syntax.BinaryTest:
		if slices.Contains(arithTestOps, x.Op) {
			return !numericTestOperand(x.X) || !numericTestOperand(x.Y)
		}
		return evaluatingTest(x.X) || evaluatingTest(x.Y)
	case *syntax.UnaryTest:
		if x.Op == syntax.TsVarSet || x.Op == syntax.TsRefVar {
			w, ok := x.X.(*syntax.Word)
			if !ok {
				return true
			}
			s, ok := staticString(w)
			return !ok || strings.Contains(s, "[")
		}
		return evaluatingTest(x.X)
	case *syntax.ParenTest:
		return evaluatingTest(x.X)
	}
	return false
}

func numericTestOperand(x syntax.TestExpr) bool {
	w, ok := x.(*syntax.Word)
	if !ok {
		return false
	}
	s, ok := staticString(w)
	return ok && isShellNumber(s)
}

// evaluatingDecl: declare -n makes a name stand for another (possibly
// subscripted) name; declare -i gives a variable the integer attribute, so
// every later assignment to it — `n=$x`, `read n`, `n+=1` anywhere after —
// evaluates the value as arithmetic, which runs the code in a value like
// a[$(cmd)]; and an operand that is not fixed text may itself be an
// assignment with a subscript. Later assignments cannot be tied back to the
// declaration, so the declaration itself is the unresolvable command.
func evaluatingDecl(d *syntax.DeclClause) bool {
	for _, as := range d.Args {
		if as.Naked && as.Name == nil && as.Value != nil {
			s, ok := staticString(as.Value)
			if !ok {
				return true
			}
			if strings.HasPrefix(s, "-") || strings.HasPrefix(s, "+") {
				if strings.ContainsAny(s[1:], "ni") {
					return true
				}
				continue
			}
			if strings.Contains(s, "[") {
				return true
			}
		}
	}
	return false
}

// evaluatingCommand: builtins that take variable names evaluate subscripts
// in them (read 'a[$(cmd)]', unset, printf -v, test -v), declare -i and -n
// reached through `command` or `builtin`, eval-like builtins and shells whose
// code is not fixed text, and the opaque commands with their code options.
// It looks at the words after expansion, so `command read 'a[$(cmd)]'`
// is caught like `read 'a[$(cmd)]'`.
func evaluatingCommand(name string, args []token) bool {
	switch {
	case name == "test" || name == "[":
		return evaluatingTestArgs(name, args)
	case name == "let":
		// A let reached through a wrapper (a bare let is a LetClause):
		// any name in it is a variable whose value is evaluated.
		for _, t := range args {
			if !t.known() || !arithOnlyNumbers.MatchString(t.value) {
				return true
			}
		}
	case name == "printf":
		// Only the operand of -v names a variable; options end at the
		// format, the first word that is not one.
		for i := 0; i < len(args); i++ {
			t := args[i]
			switch {
			case !t.known():
				return true // where an option may be: could be -v
			case t.value == "-v":
				if i+1 < len(args) && (!args[i+1].known() || strings.Contains(args[i+1].value, "[")) {
					return true
				}
				i++
			case strings.HasPrefix(t.value, "-v"):
				if strings.Contains(t.value, "[") {
					return true // -va[…]
				}
			default:
				return false // "--" or the format
			}
		}
	case declBuiltins[name]:
		for _, t := range args {
			if !t.known() || strings.Contains(t.value, "[") {
				return true
			}
			if (strings.HasPrefix(t.value, "-") || strings.HasPrefix(t.value, "+")) && strings.ContainsAny(t.value[1:], "ni") {
				return true
			}
		}
	case nameBuiltins[name]:
		for _, t := range args {
			if !t.known() || strings.Contains(t.value, "[") {
				return true
			}
		}
	case evalBuiltins[name]:
		if !allKnown(args) {
			return true
		}
	}
	if opts, ok := opaqueCommands[name]; ok {
		if opts == "" {
			// source and .: a file of commands; fixed text is a pattern
			// like any other, anything else is unknown.
			return !allKnown(args)
		}
		for _, t := range args {
			if !t.known() || (strings.HasPrefix(t.value, "-") && strings.ContainsAny(t.value[1:], opts)) {
				return true
			}
		}
	}
	return false
}

// arithOnlyNumbers matches arithmetic that names no variable.
var arithOnlyNumbers = regexp.MustCompile(`^[0-9+\-*/%()<>=!&|^~?:, \t]*$`)

// evaluatingTestArgs: test and [ evaluate a subscript in the operand of -v
// and -R, and (in some versions) arithmetic in the operands of -eq and its
// kind. An operator can come from a word whose value is unknown ([ "$op"
// "$x" ] with op=-v), and a word that may split into several (unquoted $x,
// a glob) can bring its own operator, so those count as evaluating too.
func evaluatingTestArgs(name string, args []token) bool {
	if n := len(args); name == "[" && n > 0 && args[n-1].known() && args[n-1].value == "]" {
		args = args[:n-1]
	}
	unknown := func(i int) bool { return !args[i].known() }
	for i, t := range args {
		if t.split || t.glob {
			return true
		}
		if !t.known() {
			continue
		}
		switch t.value {
		case "-eq", "-ne", "-lt", "-le", "-gt", "-ge":
			if i == 0 || i+1 >= len(args) || unknown(i-1) || unknown(i+1) || !isShellNumber(args[i-1].value) || !isShellNumber(args[i+1].value) {
				return true
			}
		case "-v", "-R":
			if i+1 < len(args) && (unknown(i+1) || strings.Contains(args[i+1].value, "[")) {
				return true
			}
		}
	}
	// Where test reads an operator: the first of two words, the middle of
	// three; with four or more, almost anywhere.
	switch n := len(args); {
	case n == 2:
		return unknown(0)
	case n == 3:
		return unknown(1)
	case n >= 4:
		return !allKnown(args)
	}
	return false
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

// env records the setting of a dangerous variable.
func (a *analyzer) env(name, valueTemplate, valueDisplay string) {
	r := bashCommandReq{Pattern: "export " + name + "=" + valueDisplay}
	if name == "BASH_CMDS" || name == "BASH_ALIASES" {
		// The command and alias tables: after this, which program a
		// command name runs is unknown, as after hash -p.
		r.Template = permission.Hole
	} else if strings.Contains(valueTemplate, permission.Hole) {
		r.Template = "export " + name + "=" + valueTemplate
	} else {
		r.Always = r.Pattern
	}
	a.addCommand(r)
}

func isDangerousEnv(name string) bool {
	for _, p := range dangerousEnv {
		if permission.Match(p, name) {
			return true
		}
	}
	return false
}

// assign handles one assignment (prefix, standalone or declared).
func (a *analyzer) assign(as *syntax.Assign) {
	if as.Name == nil || as.Naked || !isDangerousEnv(as.Name.Value) {
		return
	}
	switch {
	case as.Array != nil:
		a.env(as.Name.Value, permission.Hole, a.text(as.Array))
	case as.Value == nil:
		a.env(as.Name.Value, "", "")
	default:
		t := a.token(as.Value)
		a.env(as.Name.Value, t.value, t.display)
	}
}

func (a *analyzer) decl(d *syntax.DeclClause) {
	for _, as := range d.Args {
		a.assign(as)
	}
	if a.evaluating[d] {
		a.unresolvedCommand(a.text(d))
	}
}

// token is one word as bash will see it after expansion and quote removal,
// as far as that can be known: value holds permission.Hole for every part
// known only at run time.
type token struct {
	value   string
	display string // value, or the source text when the value has holes
	glob    bool   // unquoted glob characters: the word is a pattern over files
	braces  bool
	split   bool // an unquoted expansion: the word may become any number of words
}

func (t token) known() bool { return !strings.Contains(t.value, permission.Hole) }

// tokens expands words into the fields bash will see: brace expansion and
// tilde expansion done statically, unknown parts as holes.
func (a *analyzer) tokens(words []*syntax.Word) []token {
	var out []token
	for _, w := range words {
		if fields, ok := a.staticFields(w); ok {
			glob := hasUnquotedGlob(w)
			for _, f := range fields {
				out = append(out, token{value: f, display: f, glob: glob})
			}
			continue
		}
		out = append(out, a.token(w))
	}
	return out
}

// token expands one word without brace expansion (used where bash does
// none, or where the word has unknown parts anyway).
func (a *analyzer) token(w *syntax.Word) token {
	if fields, ok := a.staticFields(w); ok && len(fields) == 1 {
		return token{value: fields[0], display: fields[0], glob: hasUnquotedGlob(w)}
	}
	src := a.display(w)
	if hasBraces(w) {
		return token{value: permission.Hole, display: src}
	}
	var b strings.Builder
	for i, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.DblQuoted:
			if p.Dollar {
				b.WriteString(permission.Hole) // $"...": translated
				continue
			}
			for _, q := range p.Parts {
				if lit, ok := q.(*syntax.Lit); ok {
					s, err := expand.Literal(nil, &syntax.Word{Parts: []syntax.WordPart{&syntax.DblQuoted{Parts: []syntax.WordPart{lit}}}})
					if err == nil {
						b.WriteString(s)
						continue
					}
				}
				b.WriteString(permission.Hole)
			}
		case *syntax.Lit, *syntax.SglQuoted:
			if i == 0 {
				if lit, ok := p.(*syntax.Lit); ok && strings.HasPrefix(lit.Value, "~") {
					b.WriteString(permission.Hole) // tilde with an unknown rest
					continue
				}
			}
			s, err := expand.Literal(nil, &syntax.Word{Parts: []syntax.WordPart{p}})
			if err != nil {
				b.WriteString(permission.Hole)
				continue
			}
			b.WriteString(s)
		default:
			b.WriteString(permission.Hole)
		}
	}
	return token{value: collapseHoles(b.String()), display: src, glob: hasUnquotedGlob(w), split: maysplit(w)}
}

// maxSubstDisplay is how long a substitution's text may be in a pattern
// shown to a person; a longer one is shown as "$(…)". The commands inside
// are requests of their own, and without the bound every level of
// "$(echo "$(echo …)")" would repeat everything below it: quadratic in the
// command line's length.
const maxSubstDisplay = 64

// display is a word's source text with long substitutions abbreviated.
// Words that display alike still have the same template: it is made from
// the same text, with every substitution a Hole.
func (a *analyzer) display(w *syntax.Word) string {
	src := a.text(w)
	if len(src) <= maxSubstDisplay {
		return src
	}
	var b strings.Builder
	var parts func([]syntax.WordPart)
	parts = func(ps []syntax.WordPart) {
		for _, p := range ps {
			t := a.text(p)
			switch p := p.(type) {
			case *syntax.DblQuoted:
				if p.Dollar {
					b.WriteString("$")
				}
				b.WriteString(`"`)
				parts(p.Parts)
				b.WriteString(`"`)
				continue
			case *syntax.CmdSubst, *syntax.ProcSubst, *syntax.ArithmExp, *syntax.ParamExp:
				if len(t) > maxSubstDisplay {
					b.WriteString(t[:2] + "…" + t[len(t)-1:])
					continue
				}
			}
			b.WriteString(t)
		}
	}
	parts(w.Parts)
	return b.String()
}

func collapseHoles(s string) string {
	for strings.Contains(s, permission.Hole+permission.Hole) {
		s = strings.ReplaceAll(s, permission.Hole+permission.Hole, permission.Hole)
	}
	return s
}

// staticFields expands a word that holds only fixed text: quotes removed,
// braces and a leading tilde expanded (the tilde only while HOME is not
// assigned in the command line).
func (a *analyzer) staticFields(w *syntax.Word) ([]string, bool) {
	if !staticParts(w.Parts) {
		return nil, false
	}
	if lit, ok := firstLit(w); ok && strings.HasPrefix(lit, "~") {
		if a.homeAssigned || !(lit == "~" || strings.HasPrefix(lit, "~/")) {
			return nil, false
		}
	}
	if braceFields(w) > maxBraceFields {
		return nil, false
	}
	fields, err := staticExpand(a.expandCfg(), w)
	if err != nil {
		return nil, false
	}
	return fields, true
}

// braceFields is how many words brace expansion makes of w, counted without
// expanding it; counts above maxBraceFields are reported as
// maxBraceFields+1.
func braceFields(w *syntax.Word) int {
	c := *w // SplitBraces replaces the Parts slice
	if !syntax.SplitBraces(&c) {
		return 1
	}
	return wordBraceFields(&c)
}

func wordBraceFields(w *syntax.Word) int {
	n := 1
	for _, p := range w.Parts {
		b, ok := p.(*syntax.BraceExp)
		if !ok {
			continue
		}
		n = min(n*braceExpFields(b), maxBraceFields+1)
	}
	return n
}

func braceExpFields(b *syntax.BraceExp) int {
	if !b.Sequence {
		n := 0
		for _, e := range b.Elems {
			n = min(n+wordBraceFields(e), maxBraceFields+1)
		}
		return max(n, 1)
	}
	// {x..y[..step]}: numbers, or single characters, as mvdan expands them.
	from, err1 := strconv.ParseInt(b.Elems[0].Lit(), 10, 64)
	to, err2 := strconv.ParseInt(b.Elems[1].Lit(), 10, 64)
	if err1 != nil || err2 != nil {
		f, t := b.Elems[0].Lit(), b.Elems[1].Lit()
		if f == "" || t == "" {
			return 1
		}
		from, to = int64(f[0]), int64(t[0])
	}
	step := uint64(1)
	if len(b.Elems) > 2 {
		if n, err := strconv.ParseInt(b.Elems[2].Lit(), 10, 64); err == nil && n != 0 {
			step = uint64(n)
			if n < 0 {
				step = uint64(-n)
			}
		}
	}
	span := uint64(to) - uint64(from) // the distance, even across the sign
	if from > to {
		span = uint64(from) - uint64(to)
	}
	if span/step >= maxBraceFields {
		return maxBraceFields + 1
	}
	return int(span/step) + 1
}

func firstLit(w *syntax.Word) (string, bool) {
	if len(w.Parts) == 0 {
		return "", false
	}
	l, ok := w.Parts[0].(*syntax.Lit)
	if !ok {
		return "", false
	}
	return l.Value, true
}

func staticParts(parts []syntax.WordPart) bool {
	for _, p := range parts {
		switch p := p.(type) {
		case *syntax.Lit, *syntax.SglQuoted:
		case *syntax.DblQuoted:
			// $"..." is translated through the locale's message
			// catalogue (TEXTDOMAIN, TEXTDOMAINDIR, a .mo file a
			// command may have just written): not fixed text.
			if p.Dollar || !staticParts(p.Parts) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// staticExpand runs mvdan's expander on a word of fixed text with the
// real HOME for the tilde and no file system: a glob stays as written.
// The expander guards every bash call, so a panic inside it becomes an
// error, not a crash.
func staticExpand(cfg *expand.Config, w *syntax.Word) (fields []string, err error) {
	defer func() {
		if v := recover(); v != nil {
			fields, err = nil, fmt.Errorf("expand %v: %v", w, v)
		}
	}()
	return expand.Fields(cfg, w)
}

// expandCfg is the expander's configuration, made once per analysis.
func (a *analyzer) expandCfg() *expand.Config {
	if a.expand == nil {
		home, _ := os.UserHomeDir()
		a.expand = &expand.Config{Env: expand.ListEnviron("HOME=" + home)}
	}
	return a.expand
}

// staticString is a word's value when it is one field of fixed text.
func staticString(w *syntax.Word) (string, bool) {
	if w == nil || !staticParts(w.Parts) || hasBraces(w) {
		return "", false
	}
	if lit, ok := firstLit(w); ok && strings.HasPrefix(lit, "~") {
		return "", false
	}
	s, err := expand.Literal(nil, w)
	if err != nil {
		return "", false
	}
	return s, true
}

// hasBraces reports unquoted brace expansion, which turns one word into
// several.
func hasBraces(w *syntax.Word) bool {
	for _, p := range w.Parts {
		if l, ok := p.(*syntax.Lit); ok && strings.Contains(l.Value, "{") && (strings.Contains(l.Value, ",") || strings.Contains(l.Value, "..")) {
			return true
		}
	}
	return false
}

// maysplit reports an unquoted expansion, which bash splits into fields
// (and may remove when empty).
func maysplit(w *syntax.Word) bool {
	for _, p := range w.Parts {
		switch p.(type) {
		case *syntax.ParamExp, *syntax.CmdSubst, *syntax.ArithmExp:
			return true
		}
	}
	return false
}

// closesBracket reports whether a "]" follows, in the rest of a literal or
// in any later part of the word (quoted or not: erring towards a glob).
func closesBracket(rest string, later []syntax.WordPart) bool {
	if strings.Contains(rest, "]") {
		return true
	}
	for _, p := range later {
		switch p := p.(type) {
		case *syntax.Lit:
			if strings.Contains(p.Value, "]") {
				return true
			}
		case *syntax.SglQuoted:
			if strings.Contains(p.Value, "]") {
				return true
			}
		default:
			return true // unknown text may hold one
		}
	}
	return false
}

// hasUnquotedGlob reports unquoted *, ? or [ (or an extended glob).
func hasUnquotedGlob(w *syntax.Word) bool {
	for pi, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			v := p.Value
			for i := 0; i < len(v); i++ {
				if v[i] == '\\' {
					i++
					continue
				}
				if v[i] == '*' || v[i] == '?' {
					return true
				}
				// "[" opens a bracket expression only when a "]" follows
				// in the same word: the command "[" is no glob.
				if v[i] == '[' && closesBracket(v[i+1:], w.Parts[pi+1:]) {
					return true
				}
			}
		case *syntax.ExtGlob:
			return true
		}
	}
	return false
}
