// Programs that run other programs, or write files, through their options
// and program texts (the programSpecs table): what they run is a request
// of its own, asked as the inner command when it is fixed text and as a
// Hole when it is not.

package shellperm

import (
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/toolhost/toolhost/runtime/permission"
	"mvdan.cc/sh/v3/syntax"
)

// langEffect is something a program text does: run a command line
// (static or not), write a file, or something that cannot be read.
type langEffect struct {
	effect effect // runsShell, writesFile or runsUnknown
	value  string // the command line or file name, when static
	static bool
	why    string
}

// hole makes the outer command one Hole, with the reason shown by explain.
func (a *analyzer) hole(outer, why string) {
	a.addCommand(bashCommandReq{Pattern: clip(outer), Template: permission.Hole, Reason: why})
}

// inner adds the requests of a command line another program runs through
// sh -c: the inner command's own when it is fixed text and parses, else
// the outer command as a Hole.
func (a *analyzer) inner(outer, why string, code token) {
	if !code.known() || a.depth >= maxShellNesting {
		a.hole(outer, why+"; the command is not fixed text")
		return
	}
	if _, err := syntax.NewParser(shellParser).Parse(strings.NewReader(code.value), ""); err != nil {
		a.hole(outer, why+"; the command does not parse")
		return
	}
	n := len(a.out.Commands)
	a.payload(outer, code.value, true)
	a.tagReasons(n, why+": "+clip(code.value))
}

// tagReasons gives the requests added since n a reason.
func (a *analyzer) tagReasons(n int, why string) {
	for i := n; i < len(a.out.Commands); i++ {
		if a.out.Commands[i].Reason == "" {
			a.out.Commands[i].Reason = why
		}
	}
}

// plainWords matches a program value split into words by the program
// itself, not by a shell (rsync -e, sort --compress-program).
var plainWords = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_@%+=:,./ \t-]+$`) })

// innerProgram adds the request of a program run with arguments the outer
// program adds: its words and a Hole for the rest.
func (a *analyzer) innerProgram(outer, why string, v token, depth int) {
	if !v.known() || !plainWords().MatchString(v.value) || len(strings.Fields(v.value)) == 0 {
		a.inner(outer, why, v) // quotes or shell syntax: read as a command line, which errs towards asking
		return
	}
	var words []token
	for _, f := range strings.Fields(v.value) {
		words = append(words, token{value: f, display: f})
	}
	words = append(words, token{value: permission.Hole, display: "…"})
	n := len(a.out.Commands)
	a.command(words, false, depth+1)
	a.tagReasons(n, why+": "+clip(v.value))
}

// program judges the arguments of a program in programSpecs.
func (a *analyzer) program(outer string, spec programSpec, args []token, depth int) {
	switch {
	case spec.always != "":
		a.hole(outer, spec.always)
		return
	case spec.custom != nil:
		spec.custom(a, outer, args, depth)
		return
	}
	if spec.oldStyle { // tar
		for _, c := range tarCompressors {
			a.out.execs = append(a.out.execs, execRef{pattern: clip(outer), pathName: c})
		}
	}
	var texts []token       // program texts given by options
	textFromOption := false // -e or -f came before the first operand
	inPlace := false
	extract, dir := false, token{value: ".", display: "."}
	var operands []token
	options := true
	for i := 0; i < len(args); i++ {
		t := args[i]
		if options && (strings.HasPrefix(t.value, permission.Hole) || strings.HasPrefix(t.value, "--") && strings.Contains(strings.SplitN(t.value, "=", 2)[0], permission.Hole)) {
			// Could be any option, one that runs a command among them.
			if len(spec.options) > 0 {
				a.hole(outer, "an option is not fixed text, and could be one that runs a command")
				return
			}
			operands = append(operands, t)
			continue
		}
		v := t.value
		if spec.oldStyle && i == 0 && !strings.HasPrefix(v, "-") {
			// Old-style options: which words are whose values depends on
			// options the table need not know, so one that runs a
			// command makes the whole command a Hole.
			for j := 0; j < len(v); j++ {
				o, ok := spec.options["-"+v[j:j+1]]
				if ok && o.effect == extracts {
					extract = true
					continue
				}
				if ok && o.effect == changesDir {
					dir = token{value: permission.Hole, display: "(the directory of " + v + ")"}
					continue
				}
				if ok && o.effect != takesValue && o.effect != noValue {
					a.hole(outer, o.why)
					return
				}
			}
			continue
		}
		if !options || v == "-" || (!strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "+")) || (strings.HasPrefix(v, "+") && spec.options["+"].effect == 0) {
			if name, _, ok := strings.Cut(v, "="); ok && spec.assignments != nil {
				if opt, ok := spec.assignments[name]; ok {
					_, val, _ := strings.Cut(t.value, "=")
					a.applyOption(outer, opt, token{value: val, display: val}, depth)
				}
			}
			if spec.stopAtOperand {
				return
			}
			operands = append(operands, t)
			continue
		}
		if v == "--" {
			options = false
			continue
		}
		// One option word: "--name[=value]", "+cmd", or a bundle "-abc".
		var found []struct {
			opt   option
			value *token
		}
		consumeNext := func() *token {
			if i+1 < len(args) {
				i++
				return &args[i]
			}
			return &token{}
		}
		if strings.HasPrefix(v, "--") {
			name, val, hasValue := strings.Cut(v, "=")
			opt, ok := lookupLong(spec.options, name)
			if !ok {
				if spec.strict {
					a.hole(outer, "the option "+name+" is not one the analysis knows, so the program text cannot be found")
					return
				}
				continue
			}
			var value *token
			switch {
			case opt.effect == extracts:
				extract = true
				continue
			case opt.effect == noValue:
				continue
			case opt.effect == writesOperands:
				value = &token{value: val, display: val}
			case hasValue:
				value = &token{value: val, display: val}
			default:
				value = consumeNext()
			}
			found = append(found, struct {
				opt   option
				value *token
			}{opt, value})
		} else if strings.HasPrefix(v, "+") {
			found = append(found, struct {
				opt   option
				value *token
			}{spec.options["+"], &token{value: v[1:], display: v[1:]}})
		} else if o, ok := spec.options[v]; ok && len(v) > 2 {
			// An option of more than one letter (zip's -TT).
			value := &token{}
			if o.effect != noValue {
				value = consumeNext()
			}
			found = append(found, struct {
				opt   option
				value *token
			}{o, value})
		} else {
			for j := 1; j < len(v); j++ {
				if strings.HasPrefix(v[j:], permission.Hole) {
					// Letters known only at run time: any option.
					a.hole(outer, "an option is not fixed text, and could be one that runs a command")
					return
				}
				opt, ok := spec.options["-"+v[j:j+1]]
				if !ok {
					if spec.strict {
						a.hole(outer, "the option -"+v[j:j+1]+" is not one the analysis knows, so the program text cannot be found")
						return
					}
					continue
				}
				if opt.effect == noValue {
					continue
				}
				if opt.effect == extracts {
					extract = true
					continue
				}
				var value *token
				switch {
				case j+1 < len(v):
					value = &token{value: v[j+1:], display: v[j+1:]}
				case opt.effect == writesOperands:
					value = &token{}
				default:
					value = consumeNext()
				}
				found = append(found, struct {
					opt   option
					value *token
				}{opt, value})
				break
			}
		}
		for _, f := range found {
			switch f.opt.effect {
			case programText:
				texts = append(texts, *f.value)
				if len(operands) == 0 {
					textFromOption = true
				}
			case runsFile:
				a.hole(outer, f.opt.why)
				if len(operands) == 0 {
					textFromOption = true
				}
			case changesDir:
				dir = *f.value
			case writesOperands:
				inPlace = true
				if strings.Contains(f.value.value, "/") || !f.value.known() {
					a.out.addPath(bashPath{Text: f.value.display, Write: true})
				}
			default:
				a.applyOption(outer, f.opt, *f.value, depth)
			}
		}
	}
	if extract {
		// Every file of the archive is written in the directory.
		files := token{value: strings.TrimSuffix(dir.value, "/") + "/*", display: strings.TrimSuffix(dir.display, "/") + "/*", glob: true}
		a.path(files, true, false)
	}
	if spec.language == nil {
		return
	}
	files := operands
	// The program texts, each read on its own. Whether the first operand
	// is program text when an -e comes after it depends on the program:
	// GNU sed's getopt moves the -e before it (it is a file), awk and a
	// POSIXLY_CORRECT sed stop at it (it is the program). Both are read,
	// apart: joined, one could hide the other (sed 'a\' -e '1e cmd').
	var programs []token
	if len(texts) > 0 {
		programs = append(programs, joinTexts(texts))
	}
	if !textFromOption && len(operands) > 0 {
		programs = append(programs, operands[0])
		if len(texts) == 0 {
			files = operands[1:]
		}
	}
	if len(programs) == 0 {
		a.hole(outer, "the program text is missing, so it is read from a file or standard input")
		return
	}
	var effects []langEffect
	for _, text := range programs {
		if !text.known() {
			a.hole(outer, "the program text is not fixed text")
			return
		}
		e, ok := spec.language(text.value)
		if !ok {
			a.hole(outer, "the program text uses constructs the analysis cannot read, and may run commands")
			return
		}
		effects = append(effects, e...)
	}
	for _, e := range effects {
		switch e.effect {
		case runsShell:
			if e.static {
				a.inner(outer, e.why, token{value: e.value, display: e.value})
			} else {
				a.hole(outer, e.why+"; the command is not fixed text")
			}
		case writesFile:
			if e.static {
				a.path(token{value: e.value, display: e.value}, true, false)
			} else {
				a.out.addPath(bashPath{Text: outer, Write: true})
			}
		default:
			a.hole(outer, e.why)
		}
	}
	if inPlace {
		for _, f := range files {
			a.path(f, true, false)
		}
	}
}

// joinTexts joins program texts given by options with newlines, as GNU
// sed joins its -e scripts and gawk its -e sources.
func joinTexts(texts []token) token {
	joined := token{}
	for i, t := range texts {
		if i > 0 {
			joined.value += "\n"
			joined.display += "\n"
		}
		joined.value += t.value
		joined.display += t.display
	}
	return joined
}

// lookupLong finds a long option by its name or by an abbreviation of it,
// as getopt_long and argp accept: an exact name wins; an abbreviation of
// several options that differ in effect is judged as the strictest.
func lookupLong(opts map[string]option, name string) (option, bool) {
	if o, ok := opts[name]; ok {
		return o, true
	}
	var cands []string
	for k := range opts {
		if strings.HasPrefix(k, "--") && strings.HasPrefix(k, name) && len(name) > 2 {
			cands = append(cands, k)
		}
	}
	if len(cands) == 0 {
		return option{}, false
	}
	slices.Sort(cands)
	first := opts[cands[0]]
	for _, c := range cands[1:] {
		if opts[c].effect != first.effect {
			return option{effect: runsUnknown, why: "the option " + name + " abbreviates several options, one of which runs a command"}, true
		}
	}
	return first, true
}

// applyOption does what one option's value does.
func (a *analyzer) applyOption(outer string, opt option, v token, depth int) {
	switch opt.effect {
	case runsShell:
		a.inner(outer, opt.why, v)
	case runsProgram:
		a.innerProgram(outer, opt.why, v, depth)
	case runsFile, runsUnknown:
		a.hole(outer, opt.why)
	case writesFile:
		a.path(v, true, false)
	case pipeOrWrite:
		if v.known() && (strings.HasPrefix(v.value, "|") || strings.HasPrefix(v.value, "!")) {
			a.inner(outer, opt.why, token{value: v.value[1:], display: v.value[1:]})
			return
		}
		if !v.known() {
			a.hole(outer, opt.why)
			return
		}
		a.path(v, true, false)
	case checkpointAction:
		const why = "tar runs the checkpoint action's command with sh -c"
		switch {
		case !v.known():
			a.hole(outer, why)
		case strings.HasPrefix(v.value, "exec="):
			a.inner(outer, why, token{value: v.value[len("exec="):], display: v.value[len("exec="):]})
		case !tarQuietAction().MatchString(v.value):
			a.hole(outer, "tar's checkpoint action "+v.value+" is not one the analysis knows")
		}
	case lessCommands:
		if !v.known() || !lessQuietCommand().MatchString(v.value) {
			a.hole(outer, "less runs these keystrokes at start-up, and ! or | among them runs a shell command")
		}
	case sshOption:
		a.sshOption(outer, v)
	case gitConfig:
		a.gitConfig(outer, v, depth)
	case gitConfigEnv:
		name, _, _ := strings.Cut(v.value, "=")
		if _, safe := gitConfigJudge(strings.ToLower(name)); !v.known() || !safe {
			a.hole(outer, "git takes the value of "+name+" from the environment, where it cannot be read")
		}
	}
}

var tarQuietAction = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(bell|dot|\.|echo|totals|ttyout|sleep|wait)(=.*)?$`)
})

// lessQuietCommand: a line number, the end, or a search.
var lessQuietCommand = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\+?([0-9]+[Gg%]?|[Gg]|/[^!|]*)$`) })
