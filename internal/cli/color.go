package cli

import "strings"

// palette styles text with ANSI escapes when colour is on; the zero palette
// leaves text as it is, so code that prints never asks whether colour is on.
type palette struct{ on bool }

func (p palette) style(code, s string) string {
	if !p.on || s == "" {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

func (p palette) bold(s string) string   { return p.style("1", s) }
func (p palette) dim(s string) string    { return p.style("2", s) }
func (p palette) red(s string) string    { return p.style("31", s) }
func (p palette) green(s string) string  { return p.style("32", s) }
func (p palette) yellow(s string) string { return p.style("33", s) }
func (p palette) cyan(s string) string   { return p.style("36", s) }

// decision colours a permission decision (padding allowed): allow green,
// ask yellow, deny red.
func (p palette) decision(s string) string {
	switch strings.TrimSpace(s) {
	case "allow":
		return p.green(s)
	case "ask":
		return p.yellow(s)
	case "deny":
		return p.red(s)
	}
	return s
}

// diff colours a unified diff line by line: additions green, removals red,
// hunk headers cyan.
func (p palette) diff(d string) string {
	if !p.on {
		return d
	}
	lines := strings.Split(d, "\n")
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
			lines[i] = p.bold(l)
		case strings.HasPrefix(l, "+"):
			lines[i] = p.green(l)
		case strings.HasPrefix(l, "-"):
			lines[i] = p.red(l)
		case strings.HasPrefix(l, "@@"):
			lines[i] = p.cyan(l)
		}
	}
	return strings.Join(lines, "\n")
}

// colorOn decides colour for one stream, following the conventions at
// no-color.org and force-color.org: never when NO_COLOR is set to anything
// but the empty string; else always when FORCE_COLOR is set (and not "0");
// else only on a terminal that is not TERM=dumb. Output piped to a file or
// another program stays plain, so scripts never see escapes.
func colorOn(isTerminal bool, getenv func(string) string) bool {
	if getenv("NO_COLOR") != "" {
		return false
	}
	if f := getenv("FORCE_COLOR"); f != "" && f != "0" {
		return true
	}
	return isTerminal && getenv("TERM") != "dumb"
}
