// git: its global options (-c, --config-env, --exec-path), the subcommand
// options that name commands (gitSubcommands), `git config` setting a
// name that runs commands, and ext:: URLs.

package shellperm

import (
	"strings"

	"github.com/toolhost/toolhost/runtime/permission"
)

// git judges a git command line's arguments.
func (a *analyzer) git(outer string, args []token, depth int) {
	// Hooks and configuration under .git run programs: a line that
	// writes there and runs git runs what it wrote.
	a.out.execs = append(a.out.execs, execRef{pattern: clip(outer), anyGitDir: true})
	i := 0
	for ; i < len(args); i++ {
		t := args[i]
		if !t.known() {
			a.hole(outer, "a git option or subcommand is not fixed text")
			return
		}
		v := t.value
		if !strings.HasPrefix(v, "-") {
			break
		}
		name, val, hasValue := strings.Cut(v, "=")
		opt, ok := gitGlobalOptions[name]
		if !ok || (hasValue && opt.effect == noValue) {
			a.hole(outer, "the git option "+name+" is not one the analysis knows")
			return
		}
		if name == "--exec-path" && !hasValue {
			continue // prints the directory
		}
		if opt.effect == noValue {
			continue
		}
		value := token{value: val, display: val}
		if !hasValue {
			if i+1 >= len(args) {
				return
			}
			i++
			value = args[i]
		}
		a.applyOption(outer, opt, value, depth)
	}
	if i >= len(args) {
		return
	}
	sub, rest := args[i].value, args[i+1:]
	if args[i].known() && !strings.ContainsAny(sub, "/*?[") {
		// A subcommand git does not know is the program git-sub, found
		// through PATH.
		a.out.execs = append(a.out.execs, execRef{pattern: clip(outer), pathName: "git-" + sub})
	}
	switch {
	case sub == "bisect" && len(rest) > 0 && rest[0].known() && rest[0].value == "run":
		n := len(a.out.Commands)
		a.command(rest[1:], false, depth+1)
		a.tagReasons(n, gitRunsAll[sub])
		return
	case sub == "submodule" && len(rest) > 0 && rest[0].known() && rest[0].value == "foreach":
		cmd := rest[1:]
		for len(cmd) > 0 && cmd[0].known() && strings.HasPrefix(cmd[0].value, "-") {
			cmd = cmd[1:] // --recursive, -q
		}
		a.inner(outer, gitRunsAll[sub], token{value: joinValues(cmd), display: joinDisplay(cmd)})
		return
	case sub == "bisect" || sub == "submodule":
		// Their other verbs run nothing of their own.
	case gitRunsAll[sub] != "":
		a.hole(outer, gitRunsAll[sub])
		return
	case sub == "config":
		a.gitConfigSet(outer, rest, depth)
	}
	opts := gitSubcommands[sub]
	checkUnknown := len(opts) > 0
	opts = mergeOptions(opts, gitEverySubcommand)
	for j := 0; j < len(rest); j++ {
		t := rest[j]
		if !t.known() {
			if checkUnknown && (strings.HasPrefix(t.value, permission.Hole) || strings.HasPrefix(t.value, "-")) {
				a.hole(outer, "an option of git "+sub+" is not fixed text, and could be one that runs a command")
				return
			}
			continue
		}
		v := t.value
		if strings.Contains(v, "ext::") {
			a.hole(outer, "an ext:: URL makes git run a command line")
			continue
		}
		if v == "--" {
			break
		}
		if !strings.HasPrefix(v, "-") || v == "-" {
			continue
		}
		var opt option
		var value *token
		if strings.HasPrefix(v, "--") {
			name, val, hasValue := strings.Cut(v, "=")
			o, ok := lookupLong(opts, name)
			if !ok {
				continue
			}
			opt = o
			if hasValue {
				value = &token{value: val, display: val}
			}
		} else {
			// A bundle of short options (-yx cmd, -iOcmd): the first
			// listed letter takes the rest of the word, or the next word,
			// as its value. A letter that is another option's value is
			// judged as the option, which errs towards asking.
			found := false
			for k := 1; k < len(v); k++ {
				o, ok := opts["-"+v[k:k+1]]
				if !ok {
					continue
				}
				opt, found = o, true
				if k+1 < len(v) {
					value = &token{value: v[k+1:], display: v[k+1:]}
				}
				break
			}
			if !found {
				continue
			}
		}
		if value == nil {
			if j+1 >= len(rest) {
				continue
			}
			j++
			value = &rest[j]
		}
		a.applyOption(outer, opt, *value, depth)
	}
}

// gitConfigSet: `git config [options] name value` (and `git config set`)
// stores a setting every later git command obeys, so setting a name that
// runs commands is judged like git -c name=value.
func (a *analyzer) gitConfigSet(outer string, rest []token, depth int) {
	var operands []token
	for j := 0; j < len(rest); j++ {
		t := rest[j]
		switch {
		case !t.known():
			operands = append(operands, t)
		case len(t.value) >= len("--ren") && strings.HasPrefix("--rename-section", t.value) || len(operands) == 0 && t.value == "rename-section":
			// [color "x"] l = !cmd, renamed to [alias], is an alias.
			a.hole(outer, "git config renames a section, which can turn harmless settings into ones that run commands")
			return
		case t.value == "-f" || t.value == "--file" || t.value == "--blob" || t.value == "--type" || t.value == "--default" || t.value == "--comment":
			j++
		case strings.HasPrefix(t.value, "-"):
		case len(operands) == 0 && (t.value == "set" || t.value == "get" || t.value == "unset" || t.value == "list"):
			if t.value != "set" {
				return
			}
		default:
			operands = append(operands, t)
		}
	}
	if len(operands) < 2 {
		return
	}
	name, value := operands[0], operands[1]
	if !name.known() {
		a.hole(outer, "git config sets a name that is not fixed text")
		return
	}
	a.gitConfig(outer, token{value: name.value + "=" + value.value, display: name.display + "=" + value.display}, depth)
}

// mergeOptions is a and b in one map (b's entries lose to a's).
func mergeOptions(a, b map[string]option) map[string]option {
	out := make(map[string]option, len(a)+len(b))
	for k, v := range b {
		out[k] = v
	}
	for k, v := range a {
		out[k] = v
	}
	return out
}

// gitConfigJudge finds what a configuration name does: its entry in
// gitConfigKeys, or safe, or neither (a Hole).
func gitConfigJudge(name string) (option, bool) {
	for _, k := range gitConfigKeys {
		if permission.Match(k.pattern, name) {
			return k.option, false
		}
	}
	for _, p := range gitSafeConfig {
		if permission.Match(p, name) {
			return option{}, true
		}
	}
	return option{effect: runsUnknown, why: "git configuration " + name + " is not one the analysis knows to be harmless"}, false
}

// gitConfig judges a git -c "name=value".
func (a *analyzer) gitConfig(outer string, v token, depth int) {
	name, val, _ := strings.Cut(v.value, "=")
	if strings.Contains(name, permission.Hole) {
		a.hole(outer, "the git configuration name is not fixed text")
		return
	}
	opt, safe := gitConfigJudge(strings.ToLower(name))
	if safe {
		return
	}
	value := token{value: val, display: val}
	if i := strings.Index(v.display, "="); i >= 0 && !value.known() {
		value.display = v.display[i+1:]
	}
	switch opt.effect {
	case gitAlias:
		if strings.HasPrefix(val, "!") {
			a.inner(outer, opt.why, token{value: val[1:], display: value.display})
			return
		}
		// An alias of git's own words: git runs them as git arguments.
		if !value.known() || !plainWords().MatchString(val) {
			a.hole(outer, "a git alias expands to git arguments that are not plain words")
			return
		}
		words := []token{{value: "git", display: "git"}}
		for _, f := range strings.Fields(val) {
			words = append(words, token{value: f, display: f})
		}
		n := len(a.out.Commands)
		a.command(words, false, depth+1)
		a.tagReasons(n, "the git alias "+name+" runs git with these arguments")
	case gitFsmonitor:
		switch strings.ToLower(val) {
		case "true", "false", "yes", "no", "on", "off", "0", "1", "":
			return
		}
		a.innerProgram(outer, opt.why, value, depth)
	case gitHelper:
		switch {
		case val == "" || val == "cache" || val == "store" || strings.HasPrefix(val, "cache --") || strings.HasPrefix(val, "store --"):
		case strings.HasPrefix(val, "!"):
			a.inner(outer, opt.why, token{value: val[1:], display: val[1:]})
		default:
			a.hole(outer, opt.why+", a program git finds by this name")
		}
	default:
		a.applyOption(outer, opt, value, depth)
	}
}
