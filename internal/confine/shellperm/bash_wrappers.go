// Unwrapping commands that run other commands: their options, their
// assignments, and the command they run.

package shellperm

import (
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/toolhost/toolhost/runtime/permission"
)

// wrapperResult is what unwrapping a wrapper's options found.
type wrapperResult struct {
	known   bool     // every option was understood
	noRun   bool     // the command is only looked up
	replace []string // strings replaced by input in the command (xargs -I)
	payload *token   // a command-line option's value
	env     [][2]int // assignments: token indexes of NAME=VALUE words
	unset   []token  // names env -u removes
	argv0   *token   // the name the command runs under (exec -a)
}

var shellName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })

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
					if strings.IndexByte(spec.argv0, c) >= 0 {
						res.argv0 = &value
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
	if res.argv0 != nil {
		// exec -a touch busybox x: busybox runs the applet argv[0] names.
		if !res.argv0.known() {
			a.unresolvedCommand(display)
			return
		}
		named := append([]token{*res.argv0}, inner[1:]...)
		a.command(named, false, depth+1)
	}
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
