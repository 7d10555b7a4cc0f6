package shellperm

import (
	"strings"

	"github.com/toolhost/toolhost/runtime/permission"
	"mvdan.cc/sh/v3/syntax"
)

// Assignments: setting a variable that changes what other programs run is a
// request of its own (dangerousEnv in bash_data.go), whatever way the line
// sets it — a prefix, export, declare or a plain assignment.

// env records the setting of a dangerous variable.
func (a *analyzer) env(name, valueTemplate, valueDisplay string) {
	r := bashCommandReq{Pattern: "export " + name + "=" + valueDisplay}
	if name == "PATH" {
		a.out.pathSet = true
	}
	if name == "PROMPT_COMMAND" && valueTemplate != "" {
		a.inner(r.Pattern, "bash runs PROMPT_COMMAND before each prompt of an interactive shell", token{value: valueTemplate, display: valueDisplay})
	}
	for _, c := range codeEnv {
		if !permission.Match(c.pattern, name) {
			continue
		}
		if c.effect == runsShell && valueTemplate != "" && valueTemplate != permission.Hole {
			a.inner(r.Pattern, c.why, token{value: valueTemplate, display: valueDisplay})
		} else if valueTemplate != "" {
			r.Template, r.Reason = permission.Hole, c.why
		}
		break
	}
	if promptVariables[name] && (strings.ContainsAny(valueTemplate+valueDisplay, "$`") || strings.Contains(valueTemplate, permission.Hole)) {
		// PS4='$(cmd)' runs cmd before every command once set -x is on
		// (set -x, set -o xtrace, bash -x, SHELLOPTS), and the prompts
		// do in interactive shells; a value known only at run time
		// (read PS4, printf -v PS4) may hold a $(cmd) too.
		r.Template = permission.Hole
		r.Reason = "bash expands " + name + " each time it shows it (PS4 under set -x), running the commands in it"
	} else if r.Template == permission.Hole {
		// A codeEnv variable whose value names code.
	} else if name == "BASH_CMDS" || name == "BASH_ALIASES" {
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
