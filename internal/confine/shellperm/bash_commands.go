package shellperm

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/toolhost/toolhost/runtime/permission"
	"mvdan.cc/sh/v3/syntax"
)

// call handles one simple command: its assignments, then its words.
func (a *analyzer) call(c *syntax.CallExpr) {
	for _, as := range c.Assigns {
		a.assign(as)
	}
	if len(c.Args) == 0 {
		if a.evaluating[c] {
			a.unresolvedCommand(a.text(c))
		}
		return
	}
	toks := a.tokens(c.Args)
	if a.timed[c] && len(toks) > 1 && toks[0].known() && toks[0].value == "--" {
		toks = toks[1:] // time -- cmd
	}
	a.command(toks, a.evaluating[c], 0)
}

func joinDisplay(toks []token) string {
	parts := make([]string, len(toks))
	for i, t := range toks {
		parts[i] = t.display
	}
	return strings.Join(parts, " ")
}

func joinValues(toks []token) string {
	parts := make([]string, len(toks))
	for i, t := range toks {
		parts[i] = t.value
	}
	return strings.Join(parts, " ")
}

// command adds the requests of one command given as expanded words; whole
// says something in it evaluates text as code, so the request is one Hole.
// Wrappers are unwrapped and payloads parsed, each a request of its own.
func (a *analyzer) command(toks []token, whole bool, depth int) {
	if len(toks) == 0 {
		return
	}
	display := joinDisplay(toks)
	name := toks[0]
	if !whole && name.known() && !name.glob && evaluatingCommand(filepath.Base(name.value), toks[1:]) {
		whole = true
	}
	if whole || !name.known() || name.glob || depth > maxWrapperDepth {
		// Past the wrapper bound the command is unknown: unwrapping on
		// would cost time quadratic in the number of wrappers.
		a.unresolvedCommand(display)
		return
	}
	a.pattern(toks)
	base := filepath.Base(name.value)
	if strings.Contains(name.value, "/") {
		// /bin/rm is asked as itself and as rm: both must be allowed.
		bare := slices.Clone(toks)
		bare[0] = token{value: base, display: base}
		a.pattern(bare)
	}
	args := toks[1:]
	if nameBuiltins[base] {
		// read PATH, unset LD_PRELOAD, printf -v IFS …: a dangerous
		// variable set (or removed) to a value known only at run time.
		for _, t := range args {
			if t.known() && shellName().MatchString(t.value) && isDangerousEnv(t.value) {
				a.env(t.value, permission.Hole, "("+base+")")
			}
		}
	}
	if pathCommands[base] {
		a.pathOperands(base, args)
	}
	if spec, ok := programSpecs[base]; ok {
		a.program(display, spec, args, depth)
	} else if sub, ok := strings.CutPrefix(base, "git-"); ok && sub != "" {
		// /usr/lib/git-core/git-config alias.l '!cmd' is git config.
		a.git(display, append([]token{{value: sub, display: sub}}, args...), depth)
	}
	if strings.Contains(name.value, "/") {
		a.execFile(name, display)
	} else if base == "make" {
		// make runs the recipes of the makefile it finds.
		for _, mf := range []string{"GNUmakefile", "makefile", "Makefile"} {
			a.execFile(token{value: mf, display: mf}, display)
		}
	} else if slices.Contains(scriptInterpreters, base) {
		// Which operand is the script depends on the options before it
		// (python3 -W ignore s.py): every operand may be.
		for _, t := range args {
			if t.known() && !strings.HasPrefix(t.value, "-") {
				a.execFile(t, display)
			}
		}
	}
	switch {
	case base == "source" || base == ".":
		a.hole(display, base+" runs the file's commands, which cannot be read before it runs")
	case base == "eval":
		a.payload(display, joinValues(args), allKnown(args))
	case base == "trap":
		a.trap(display, args)
	case base == "alias":
		for _, t := range args {
			if !t.known() {
				a.unresolvedCommand(display)
				continue
			}
			if _, code, ok := strings.Cut(t.value, "="); ok {
				a.payload(display, code, true)
			}
		}
	case slices.Contains(shellInterpreters, base):
		a.shell(display, args)
	case base == "find":
		a.find(display, args, depth)
	case shellRunners[base].flags != "":
		a.shellRunner(base, display, shellRunners[base], args)
	case base == watchCommand:
		if inner, ok := unwrapOptions(bashWrappers[base], args); ok.known {
			a.payload(display, joinValues(inner), allKnown(inner))
		} else {
			a.unresolvedCommand(display)
		}
	default:
		spec, ok := bashWrappers[base]
		if !ok {
			return
		}
		a.wrapper(display, spec, args, depth)
	}
}

// pattern adds the bash request for a command's words.
func (a *analyzer) pattern(toks []token) {
	r := bashCommandReq{Pattern: joinDisplay(toks)}
	if t := joinValues(toks); strings.Contains(t, permission.Hole) {
		r.Template = t
	}
	// The "always" pattern is the command's arity prefix; it is offered
	// only when that prefix is fixed text.
	values := make([]string, len(toks))
	for i, t := range toks {
		values[i] = t.value
	}
	prefix := commandPrefix(values[:min(len(values), arityWindow)])
	if !slices.ContainsFunc(prefix, func(s string) bool { return strings.Contains(s, permission.Hole) }) {
		r.Always = strings.Join(prefix, " ") + " *"
	}
	a.addCommand(r)
}

// arityWindow is how many leading words commandPrefix can look at: its
// longest key plus the largest arity. Passing only those keeps pattern
// linear in a command's length (commandPrefix joins every prefix).
var arityWindow = func() int {
	n := 0
	for k, arity := range commandArity {
		n = max(n, strings.Count(k, " ")+1, arity)
	}
	return n + 1
}()

func allKnown(toks []token) bool {
	for _, t := range toks {
		if !t.known() {
			return false
		}
	}
	return true
}

// payload analyses a command line run by another command (bash -c, eval,
// trap); code that is not fixed text, or nested too deep, makes the outer
// command unresolvable.
func (a *analyzer) payload(outer, code string, known bool) {
	if !known || a.depth >= maxShellNesting {
		a.unresolvedCommand(outer)
		return
	}
	if err := analyzeInto(a.out, code, a.scope, a.depth+1); err != nil {
		a.err = err
	}
}

func (a *analyzer) trap(display string, args []token) {
	for i, t := range args {
		if !t.known() {
			a.unresolvedCommand(display)
			return
		}
		if t.value == "--" {
			continue
		}
		if strings.HasPrefix(t.value, "-") {
			return // trap -p, -l, or trap - SIG (reset)
		}
		if i == len(args)-1 && len(args) > 1 {
			return
		}
		a.payload(display, t.value, true)
		return
	}
}

// shell handles bash/sh/…: a -c payload is parsed; reading commands from
// standard input is unresolvable; a script file is the outer pattern alone.
func (a *analyzer) shell(display string, args []token) {
	hasC := false
	for i, t := range args {
		if !t.known() {
			if hasC {
				a.unresolvedCommand(display)
			} else {
				// bash <(echo 'touch p'), bash "$s": a script whose
				// commands no one was shown.
				a.hole(display, "the shell runs a script named only at run time (a variable or <(…)), whose commands cannot be read before it runs")
			}
			return
		}
		v := t.value
		switch {
		case v == "-" || v == "--":
			if hasC && i+1 < len(args) {
				a.payload(display, args[i+1].value, args[i+1].known())
				return
			}
			if !hasC && i+1 < len(args) {
				a.hole(display, "the shell runs the file "+args[i+1].display+" as a script, whose commands cannot be read before it runs")
				return
			}
			a.unresolvedCommand(display)
			return
		case strings.HasPrefix(v, "--"):
			continue
		case strings.HasPrefix(v, "-") || strings.HasPrefix(v, "+"):
			if strings.Contains(v[1:], "c") {
				hasC = true
			}
			if strings.Contains(v[1:], "s") {
				a.unresolvedCommand(display)
				return
			}
		default:
			if hasC {
				a.payload(display, v, true)
				return
			}
			a.hole(display, "the shell runs the file "+t.display+" as a script, whose commands cannot be read before it runs")
			return
		}
	}
	// No -c operand and no script: the shell reads standard input.
	a.unresolvedCommand(display)
}

// find runs the commands of -exec/-execdir/-ok/-okdir (with {} standing for
// each file found) and writes the files of -fprint and friends.
func (a *analyzer) find(display string, args []token, depth int) {
	for i := 0; i < len(args); i++ {
		t := args[i]
		if !t.known() {
			// Could be -exec, making the words after it a command.
			a.unresolvedCommand(display)
			return
		}
		if n := findArgCount(t.value); n > 0 {
			// -name -exec: the pattern "-exec", not an action.
			if t.value == "-fprint" || t.value == "-fprint0" || t.value == "-fprintf" || t.value == "-fls" {
				if i+1 < len(args) {
					a.path(args[i+1], true, false)
				}
			}
			i += n
			continue
		}
		switch t.value {
		case "-exec", "-execdir", "-ok", "-okdir":
			var inner []token
			j := i + 1
			for ; j < len(args); j++ {
				if args[j].known() && (args[j].value == ";" || args[j].value == "+") {
					break
				}
				inner = append(inner, args[j])
			}
			// find puts each file's name wherever "{}" occurs, also
			// inside a word (sh -c 'echo {}'): a name can be code.
			a.command(replaceWithHoles(inner, []string{"{}"}), false, depth+1)
			i = j
		case "-delete":
			// Removes every file found: which ones, and where, is known
			// only when it runs.
			a.out.addPath(bashPath{Text: display, Write: true})
		}
	}
}

// findArgs are find's primaries and options that take arguments, and how
// many: the words they take are patterns, numbers and names, never
// actions (find . -name -exec -o -exec …).
var findArgs = map[string]int{
	"-amin": 1, "-anewer": 1, "-atime": 1, "-cmin": 1, "-cnewer": 1, "-ctime": 1, "-fstype": 1, "-gid": 1,
	"-group": 1, "-ilname": 1, "-iname": 1, "-inum": 1, "-ipath": 1, "-iregex": 1, "-iwholename": 1,
	"-links": 1, "-lname": 1, "-mmin": 1, "-mtime": 1, "-name": 1, "-newer": 1, "-path": 1, "-perm": 1,
	"-regex": 1, "-samefile": 1, "-size": 1, "-type": 1, "-uid": 1, "-used": 1, "-user": 1,
	"-wholename": 1, "-xtype": 1, "-context": 1, "-maxdepth": 1, "-mindepth": 1, "-regextype": 1,
	"-files0-from": 1, "-fprint": 1, "-fprint0": 1, "-fls": 1, "-printf": 1, "-fprintf": 2, "-D": 1,
}

// findArgCount is how many words the find primary v takes (-newerXY
// takes one).
func findArgCount(v string) int {
	if len(v) == len("-newerXY") && strings.HasPrefix(v, "-newer") {
		return 1
	}
	return findArgs[v]
}
