package builtins

import (
	"os"
	"path/filepath"
	"regexp"
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
			if t.known() && shellName.MatchString(t.value) && isDangerousEnv(t.value) {
				a.env(t.value, permission.Hole, "("+base+")")
			}
		}
	}
	if pathCommands[base] {
		a.pathOperands(base, args)
	}
	switch {
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
	prefix := CommandPrefix(values[:min(len(values), arityWindow)])
	if !slices.ContainsFunc(prefix, func(s string) bool { return strings.Contains(s, permission.Hole) }) {
		r.Always = strings.Join(prefix, " ") + " *"
	}
	a.addCommand(r)
}

// arityWindow is how many leading words CommandPrefix can look at: its
// longest key plus the largest arity. Passing only those keeps pattern
// linear in a command's length (CommandPrefix joins every prefix).
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
			}
			return // a script named by a variable: the pattern shows it
		}
		v := t.value
		switch {
		case v == "-" || v == "--":
			if hasC && i+1 < len(args) {
				a.payload(display, args[i+1].value, args[i+1].known())
				return
			}
			if !hasC && i+1 < len(args) {
				return // a script operand follows
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
			}
			return // a script file
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
		case "-fprint", "-fprint0", "-fprintf", "-fls":
			if i+1 < len(args) {
				a.path(args[i+1], true, false)
			}
		}
	}
}

// wrapperResult is what unwrapping a wrapper's options found.
type wrapperResult struct {
	known   bool     // every option was understood
	noRun   bool     // the command is only looked up
	replace []string // strings replaced by input in the command (xargs -I)
	payload *token   // a command-line option's value
	env     [][2]int // assignments: token indexes of NAME=VALUE words
	unset   []token  // names env -u removes
}

var shellName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// unwrapOptions skips a wrapper's options, assignments and leading operands
// and returns the wrapped command's words.
func unwrapOptions(spec wrapperSpec, args []token) ([]token, wrapperResult) {
	res := wrapperResult{known: true}
	positional := spec.positional
	for i := 0; i < len(args); i++ {
		t := args[i]
		if !t.known() {
			if positional == 0 && !strings.HasPrefix(t.value, "-") && !strings.HasPrefix(t.value, permission.Hole) {
				return args[i:], res
			}
			res.known = false
			return nil, res
		}
		v := t.value
		switch {
		case v == "--":
			rest := args[i+1:]
			if positional > len(rest) {
				return nil, res
			}
			return rest[positional:], res
		case spec.assignments && strings.Contains(v, "=") && !strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "="):
			res.env = append(res.env, [2]int{i, i})
			continue
		case spec.assignments && v == "-":
			continue // env - is env -i
		case strings.HasPrefix(v, "--"):
			name, _, hasValue := strings.Cut(v, "=")
			switch {
			case slices.Contains(spec.long, name):
			case slices.Contains(spec.longOptArg, name):
				val, _ := strings.CutPrefix(v, name+"=")
				if name == "--replace" {
					if !hasValue {
						val = "{}"
					}
					res.replace = append(res.replace, val)
				}
			case slices.Contains(spec.longWithArg, name):
				value := token{}
				if hasValue {
					_, val, _ := strings.Cut(v, "=")
					value = token{value: val, display: val}
				} else if i+1 < len(args) {
					i++
					value = args[i]
				}
				if (name == "--split-string" || name == "--command") && spec.payload != "" {
					res.payload = &value
				}
				if name == "--unset" && spec.unset != "" {
					res.unset = append(res.unset, value)
				}
			default:
				res.known = false
				return nil, res
			}
		case strings.HasPrefix(v, "-") && len(v) > 1:
			if spec.numeric && isShellNumber(v[1:]) {
				continue
			}
			for j := 1; j < len(v); j++ {
				c := v[j]
				switch {
				case strings.IndexByte(spec.flags, c) >= 0:
					if strings.IndexByte(spec.noRun, c) >= 0 {
						res.noRun = true
					}
				case strings.IndexByte(spec.withArg, c) >= 0:
					var value token
					if j+1 < len(v) {
						value = token{value: v[j+1:], display: v[j+1:]}
					} else if i+1 < len(args) {
						i++
						value = args[i]
					}
					if strings.IndexByte(spec.payload, c) >= 0 {
						res.payload = &value
					}
					if strings.IndexByte(spec.unset, c) >= 0 {
						res.unset = append(res.unset, value)
					}
					if strings.IndexByte(spec.replace, c) >= 0 {
						if !value.known() {
							res.known = false
							return nil, res
						}
						res.replace = append(res.replace, value.value)
					}
					j = len(v)
				default:
					res.known = false
					return nil, res
				}
			}
		default:
			if positional > 0 {
				positional--
				continue
			}
			return args[i:], res
		}
	}
	return nil, res
}

// wrapper unwraps one wrapper command and analyses what it runs.
func (a *analyzer) wrapper(display string, spec wrapperSpec, args []token, depth int) {
	inner, res := unwrapOptions(spec, args)
	if !res.known {
		a.unresolvedCommand(display)
		return
	}
	for _, e := range res.env {
		name, value, _ := strings.Cut(args[e[0]].value, "=")
		if isDangerousEnv(name) {
			disp := value
			if !args[e[0]].known() {
				_, disp, _ = strings.Cut(args[e[0]].display, "=")
			}
			a.env(name, value, disp)
		}
	}
	for _, u := range res.unset {
		if !u.known() || isDangerousEnv(u.value) {
			a.env(u.display, permission.Hole, "(unset)")
		}
	}
	if res.noRun {
		return
	}
	if res.payload != nil && spec.splitPayload {
		// env -S 'a b' c runs "a b c": the string is split by env's own
		// rules, then read as more of env's words.
		words, ok := splitEnvString(*res.payload)
		if !ok {
			a.unresolvedCommand(display)
			return
		}
		a.command(append(append([]token{{value: "env", display: "env"}}, words...), inner...), false, depth+1)
		return
	}
	if res.payload != nil {
		a.payload(display, res.payload.value, res.payload.known())
	}
	if len(res.replace) > 0 {
		inner = replaceWithHoles(inner, res.replace)
	}
	if len(inner) == 0 {
		if spec.implicit != "" {
			inner = []token{{value: spec.implicit, display: spec.implicit}}
		} else {
			return
		}
	}
	if spec.appends {
		inner = append(slices.Clone(inner), token{value: permission.Hole, display: "…"})
	}
	a.command(inner, false, depth+1)
}

// splitEnvString splits env -S's string the way env does when it holds only
// plain words; quotes, backslash escapes (\_ is a space, \c ends the
// string), ${VAR} and # comments are env's own syntax, not the shell's,
// so a string with any of them is unknown.
func splitEnvString(t token) ([]token, bool) {
	if !t.known() || strings.ContainsAny(t.value, "\\$'\"#") {
		return nil, false
	}
	var out []token
	for _, f := range strings.Fields(t.value) {
		out = append(out, token{value: f, display: f})
	}
	return out, true
}

// replaceWithHoles makes every occurrence of a replace string (xargs -I{})
// in the command's words a hole: input takes its place, and input can be
// code (xargs -I{} sh -c '{}').
func replaceWithHoles(toks []token, replace []string) []token {
	out := slices.Clone(toks)
	for i, t := range out {
		for _, r := range replace {
			if r != "" && strings.Contains(t.value, r) {
				t.value = collapseHoles(strings.ReplaceAll(t.value, r, permission.Hole))
			}
		}
		out[i] = t
	}
	return out
}

// shellRunner handles su and script: the shell they start runs the -c
// option's command line; without it, it reads standard input. script's
// operand is the file it writes.
func (a *analyzer) shellRunner(base, display string, spec wrapperSpec, args []token) {
	var payload *token
	operands := 0
	for i := 0; i < len(args); i++ {
		t := args[i]
		if !t.known() {
			a.unresolvedCommand(display)
			return
		}
		v := t.value
		switch {
		case v == "-" && base == "su":
			continue // a login shell
		case v == "--":
			operands += len(args) - i - 1
			if base == "script" && i+1 < len(args) {
				a.path(args[i+1], true, false)
			}
			i = len(args)
		case strings.HasPrefix(v, "--"):
			name, val, hasValue := strings.Cut(v, "=")
			switch {
			case slices.Contains(spec.long, name):
			case slices.Contains(spec.longWithArg, name):
				value := token{value: val, display: val}
				if !hasValue {
					if i+1 >= len(args) {
						break
					}
					i++
					value = args[i]
				}
				if name == "--command" {
					payload = &value
				}
			default:
				a.unresolvedCommand(display) // --shell among them
				return
			}
		case strings.HasPrefix(v, "-") && len(v) > 1:
			for j := 1; j < len(v); j++ {
				c := v[j]
				switch {
				case strings.IndexByte(spec.flags, c) >= 0:
				case strings.IndexByte(spec.withArg, c) >= 0:
					value := token{value: v[j+1:], display: v[j+1:]}
					if j+1 == len(v) && i+1 < len(args) {
						i++
						value = args[i]
					}
					if c == 'c' {
						payload = &value
					}
					j = len(v)
				default:
					a.unresolvedCommand(display) // -s, a shell of one's choosing
					return
				}
			}
		default:
			operands++
			if base == "script" {
				a.path(t, true, false)
			}
		}
	}
	// su passes operands after the user to the shell as its arguments.
	if payload == nil || (base == "su" && operands > 1) {
		a.unresolvedCommand(display)
		return
	}
	a.payload(display, payload.value, payload.known())
}

// pathOperands checks the operands of a path command.
func (a *analyzer) pathOperands(base string, args []token) {
	skipFirst := base == "chmod" || base == "chown" || base == "chgrp"
	isCd := base == "cd" || base == "pushd"
	if isCd && !slices.ContainsFunc(args, func(t token) bool { return !t.known() || !strings.HasPrefix(t.value, "-") || t.value == "-" }) {
		// cd alone goes home.
		home, err := os.UserHomeDir()
		if a.homeAssigned || err != nil {
			a.out.addPath(bashPath{Text: "~", IsDir: true})
		} else {
			a.out.addPath(bashPath{Abs: a.out.resolve(home), Text: "~", IsDir: true})
		}
		return
	}
	options := true
	for _, t := range args {
		if options && t.known() {
			if t.value == "--" {
				options = false
				continue
			}
			if strings.HasPrefix(t.value, "-") && t.value != "-" {
				continue
			}
			if base == "chmod" && strings.HasPrefix(t.value, "+") {
				continue
			}
		}
		if skipFirst {
			skipFirst = false
			continue
		}
		if isCd && t.known() && (t.value == "-" || strings.HasPrefix(t.value, "+")) {
			// The previous directory: $OLDPWD, which a fresh shell takes
			// from toolhost's environment.
			a.out.addPath(bashPath{Text: t.display, IsDir: true})
			continue
		}
		a.path(t, base == "tee", isCd)
	}
}

// bashDevices are the only paths exempt from checks, compared after
// cleaning: where output is thrown away or passed on.
var bashDevices = []string{"/dev/null", "/dev/zero", "/dev/stdout", "/dev/stderr", "/dev/stdin", "/dev/tty", "/dev/random", "/dev/urandom"}

func isBashDevice(p string) bool {
	c := filepath.Clean(p)
	if slices.Contains(bashDevices, c) {
		return true
	}
	if n, ok := strings.CutPrefix(c, "/dev/fd/"); ok && n != "" && strings.Trim(n, "0123456789") == "" {
		return true
	}
	return false
}

// reopensDescriptor: opening these opens the file behind a descriptor of
// the shell anew (they are links to /proc/self/fd/N), in the mode asked
// for, not the mode the descriptor was opened with.
func reopensDescriptor(p string) bool {
	c := filepath.Clean(p)
	return c == "/dev/stdin" || c == "/dev/stdout" || c == "/dev/stderr" || strings.HasPrefix(c, "/dev/fd/")
}

// path records a path operand or redirection target.
func (a *analyzer) path(t token, write, isDir bool) {
	unresolved := !t.known() || t.braces
	if !unresolved && t.glob {
		// A glob in the last element is a set of files in a known
		// directory; anywhere else the directory itself is unknown.
		unresolved = strings.ContainsAny(filepath.Dir(t.value), "*?[")
	}
	if !unresolved && !filepath.IsAbs(t.value) && a.out.cwdUnknown {
		unresolved = true
	}
	if unresolved {
		a.out.addPath(bashPath{Text: t.display, Write: write, IsDir: isDir})
		return
	}
	if isBashDevice(t.value) {
		if !write || !a.out.readsFile || !reopensDescriptor(t.value) {
			return
		}
		// `cmd <f >/dev/stdin` writes f: which file is unknown here.
		a.out.addPath(bashPath{Text: t.display, Write: true})
		return
	}
	isDir = isDir || strings.HasSuffix(t.value, "/")
	for _, wd := range a.out.workdirs {
		if isDir && a.madeBy(wd, t.value) {
			continue // the directory this very cd leads to
		}
		a.out.addPath(bashPath{Abs: a.out.resolve(joinUnclean(wd, t.value)), Text: t.display, Write: write, IsDir: isDir})
		if filepath.IsAbs(t.value) {
			break
		}
	}
}

// madeBy reports whether workdir wd is where cd p leads from another
// candidate: a cd's own operand is resolved against where the shell was
// before it, not after.
func (a *analyzer) madeBy(wd, p string) bool {
	if filepath.IsAbs(p) {
		return false
	}
	for _, w0 := range a.out.workdirs {
		if w0 != wd && a.out.resolve(joinUnclean(w0, p)) == wd {
			return true
		}
	}
	return false
}

// redirects checks a statement's redirections: every operator that can
// write a file, and the reads.
func (a *analyzer) redirects(s *syntax.Stmt) {
	for _, r := range s.Redirs {
		if r.Word == nil {
			continue
		}
		if (r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc) && a.heredocAmbiguous(r) {
			// bash ends a here-document inside $( ) at a line like
			// "EOF)", where the parser reads on: the two would disagree
			// on which lines are commands.
			a.unresolvedCommand(a.text(s))
		}
		var write bool
		switch r.Op {
		case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.RdrAll, syntax.AppAll, syntax.RdrInOut, syntax.RdrAllClob, syntax.AppAllClob:
			write = true
		case syntax.RdrIn:
		case syntax.DplOut, syntax.DplIn:
			// >&2, >&-, <&0 duplicate descriptors; >& file writes a file.
			if v, ok := staticString(r.Word); ok && (v == "-" || strings.Trim(v, "0123456789") == "" || strings.Trim(strings.TrimSuffix(v, "-"), "0123456789") == "") {
				continue
			}
			write = r.Op == syntax.DplOut
		default:
			continue // here-documents and here-strings: no file
		}
		if onlyProcSubst(r.Word) {
			continue // >(cmd): a pipe to a command that has its own request
		}
		a.path(a.token(r.Word), write, false)
	}
}

// heredocAmbiguous reports a here-document with a body line that starts
// with its delimiter but is not exactly it: bash may end the document
// there (it does for "EOF)" inside a command substitution).
func (a *analyzer) heredocAmbiguous(r *syntax.Redirect) bool {
	delim, ok := staticString(r.Word)
	if !ok {
		return true
	}
	if r.Hdoc == nil {
		return false
	}
	for _, line := range strings.Split(a.text(r.Hdoc), "\n") {
		if r.Op == syntax.DashHdoc {
			line = strings.TrimLeft(line, "\t")
		}
		if line != delim && strings.HasPrefix(line, delim) {
			return true
		}
	}
	return false
}

func onlyProcSubst(w *syntax.Word) bool {
	if len(w.Parts) != 1 {
		return false
	}
	_, ok := w.Parts[0].(*syntax.ProcSubst)
	return ok
}

// joinUnclean joins a relative path to a base without cleaning it: "lnk/.."
// must be resolved after lnk is, as the kernel does, not removed as text.
func joinUnclean(base, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return base + string(filepath.Separator) + p
}

// maxSymlinks is the kernel's limit on links followed in one lookup.
const maxSymlinks = 40

// resolveOnDisk resolves p the way the kernel does: element by element,
// following each symlink as it is met and applying ".." to the resolved
// directory. Elements that do not exist are appended as text, cleaned.
func resolveOnDisk(p string) string {
	if !filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	rest := strings.Split(p, string(filepath.Separator))
	cur := string(filepath.Separator)
	links := 0
	for i := 0; i < len(rest); i++ {
		elem := rest[i]
		switch elem {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, elem)
		fi, err := os.Lstat(next)
		if err != nil {
			// Not there (yet): what is left is created as written.
			return filepath.Join(append([]string{cur}, rest[i:]...)...)
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			cur = next
			continue
		}
		links++
		target, err := os.Readlink(next)
		if err != nil || links > maxSymlinks {
			return filepath.Join(append([]string{next}, rest[i+1:]...)...)
		}
		if filepath.IsAbs(target) {
			cur = string(filepath.Separator)
		}
		rest = append(strings.Split(target, string(filepath.Separator)), rest[i+1:]...)
		i = -1
	}
	return cur
}
