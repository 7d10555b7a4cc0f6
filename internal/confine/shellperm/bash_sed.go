// Reading sed scripts for what they run and write: GNU sed's e command
// (e command runs the command; a bare e runs the pattern space), the s
// command's e flag (runs the pattern space) and w flag, and the w and W
// commands (write files). The script is parsed command by command, with
// addresses, regex delimiters of any character, escapes and the a/i/c
// text forms, so that an e hidden in a regex or behind a custom delimiter
// is found and one inside a regex is not. A script the parser does not
// understand is unreadable (a Hole): GNU sed would reject it or read it in
// a way the analysis does not follow.

package shellperm

import "strings"

const (
	whySedE  = "sed's e command runs this with sh -c"
	whySedPS = "sed runs its pattern space, which comes from the input, with sh -c"
)

// sedParser walks a sed script.
type sedParser struct {
	s   string
	i   int
	out []langEffect
}

func (p *sedParser) eof() bool { return p.i >= len(p.s) }
func (p *sedParser) peek() byte {
	if p.eof() {
		return 0
	}
	return p.s[p.i]
}

func (p *sedParser) skipSpace() {
	for !p.eof() && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

// restOfLine reads to the end of the line (the argument of e, w, r, a …).
func (p *sedParser) restOfLine() string {
	j := strings.IndexByte(p.s[p.i:], '\n')
	if j < 0 {
		j = len(p.s) - p.i
	}
	v := p.s[p.i : p.i+j]
	p.i += j
	return v
}

// delimited reads up to an unescaped delimiter d and steps past it. A
// newline ends the script's command unless escaped.
func (p *sedParser) delimited(d byte) bool {
	for !p.eof() {
		c := p.s[p.i]
		p.i++
		switch {
		case c == '\\':
			if p.eof() {
				return false
			}
			p.i++
		case c == d:
			return true
		case c == '\n':
			return false
		}
	}
	return false
}

// regex reads a regular expression up to an unescaped delimiter d and
// steps past it. GNU sed reads a bracket expression whole, so a d inside
// one does not end it ("/[/]/p"); a delimiter that is itself a bracket is
// unreadable.
func (p *sedParser) regex(d byte) bool {
	if d == '[' || d == ']' {
		return false
	}
	for !p.eof() {
		c := p.s[p.i]
		switch {
		case c == '\\':
			p.i += 2
			if p.i > len(p.s) {
				return false
			}
			continue
		case c == '[':
			n, ok := bracketExpr(p.s[p.i:], 0)
			if !ok {
				return false
			}
			p.i += n
			continue
		case c == d:
			p.i++
			return true
		case c == '\n':
			return false
		}
		p.i++
	}
	return false
}

// address reads one address, if any.
func (p *sedParser) address() bool {
	c := p.peek()
	switch {
	case c >= '0' && c <= '9':
		for !p.eof() && p.peek() >= '0' && p.peek() <= '9' {
			p.i++
		}
		if p.peek() == '~' {
			p.i++
			for !p.eof() && p.peek() >= '0' && p.peek() <= '9' {
				p.i++
			}
		}
	case c == '$':
		p.i++
	case c == '/' || c == '\\':
		p.i++
		d := byte('/')
		if c == '\\' {
			if p.eof() || p.peek() == '\n' || p.peek() == '\\' {
				return false
			}
			d = p.peek()
			p.i++
		}
		if !p.regex(d) {
			return false
		}
		for p.peek() == 'I' || p.peek() == 'M' {
			p.i++
		}
	}
	return true
}

// scanSed returns what a sed script runs and writes; ok is false when the
// script cannot be read with certainty.
func scanSed(src string) ([]langEffect, bool) {
	if len(src) > maxProgramText {
		return nil, false
	}
	p := &sedParser{s: src}
	for {
		// Between commands: blanks, newlines, semicolons, comments.
		for !p.eof() && strings.IndexByte(" \t\n;", p.peek()) >= 0 {
			p.i++
		}
		if p.eof() {
			return p.out, true
		}
		if p.peek() == '#' {
			p.restOfLine()
			continue
		}
		if !p.address() {
			return nil, false
		}
		p.skipSpace()
		if p.peek() == ',' {
			p.i++
			p.skipSpace()
			if p.peek() == '+' || p.peek() == '~' {
				p.i++
			}
			if !p.address() {
				return nil, false
			}
		}
		p.skipSpace()
		for p.peek() == '!' {
			p.i++
			p.skipSpace()
		}
		if p.eof() {
			return nil, false
		}
		cmd := p.s[p.i]
		p.i++
		if !p.command(cmd) {
			return nil, false
		}
		if strings.IndexByte("{:btTv", cmd) >= 0 {
			// GNU sed reads the next command right after these: a label
			// ends at a blank, and `b a e cmd` is a branch, then e.
			continue
		}
		// After a command: blanks, then its end.
		p.skipSpace()
		if !p.eof() && strings.IndexByte("\n;}#", p.peek()) < 0 {
			return nil, false
		}
	}
}

// command reads one command's arguments.
func (p *sedParser) command(cmd byte) bool {
	switch cmd {
	case '{', '}', '=', 'd', 'D', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x', 'z', 'F':
	case 'l', 'L', 'q', 'Q':
		p.skipSpace()
		for !p.eof() && p.peek() >= '0' && p.peek() <= '9' {
			p.i++
		}
	case ':':
		p.skipSpace()
		if label := p.label(); label == "" {
			return false
		}
	case 'b', 't', 'T':
		p.skipSpace()
		p.label()
	case 'v':
		p.skipSpace()
		p.label()
	case 'r', 'R':
		p.restOfLine()
	case 'w', 'W':
		p.skipSpace()
		p.write(p.restOfLine())
	case 'e':
		p.skipSpace()
		if c := p.restOfLine(); strings.Contains(c, `\`) {
			// GNU sed continues the command past a backslash at the end
			// of the line, and reads escapes in it: not fixed text.
			for strings.HasSuffix(c, `\`) && !p.eof() {
				p.i++
				c = p.restOfLine()
			}
			p.out = append(p.out, langEffect{effect: runsShell, why: whySedE})
		} else if c != "" {
			p.out = append(p.out, langEffect{effect: runsShell, value: c, static: true, why: whySedE})
		} else {
			p.out = append(p.out, langEffect{effect: runsShell, why: whySedPS})
		}
	case 'a', 'i', 'c':
		p.text()
	case 'y':
		d := p.peek()
		if d == 0 || d == '\n' || d == '\\' {
			return false
		}
		p.i++
		return p.delimited(d) && p.delimited(d)
	case 's':
		return p.substitute()
	default:
		return false
	}
	return true
}

// label reads a label as GNU sed does: up to a blank, a semicolon or the
// end of the line. Older seds read on to the end of the line, which only
// makes this parse find more commands than they run.
func (p *sedParser) label() string {
	j := p.i
	for !p.eof() && strings.IndexByte(" \t\n;\r\v\f", p.peek()) < 0 {
		p.i++
	}
	return p.s[j:p.i]
}

// text reads the text of a, i and c as GNU sed's read_text does: after
// blanks, "a text", or "a\" and the text from the very next character,
// taken as it is (a newline there starts it on the next line); after
// that a backslash escapes any character, a newline included, so the
// text goes on to the first unescaped newline.
func (p *sedParser) text() {
	p.skipSpace()
	if p.peek() == '\\' {
		// "a\" then a character: GNU sed's read_text takes that
		// character as it is, a backslash too ("a\\⏎" is the text
		// "\", and the next line a command), and reads on from the
		// one after it.
		p.i++
		if !p.eof() {
			p.i++
		}
	}
	for !p.eof() {
		c := p.s[p.i]
		p.i++
		if c == '\\' {
			if !p.eof() {
				p.i++
			}
			continue
		}
		if c == '\n' {
			p.i--
			return
		}
	}
}

// substitute reads s/re/replacement/flags.
func (p *sedParser) substitute() bool {
	d := p.peek()
	if d == 0 || d == '\n' || d == '\\' {
		return false
	}
	p.i++
	if !p.regex(d) {
		return false
	}
	// The replacement may hold escaped newlines.
	for {
		if p.eof() {
			return false
		}
		c := p.s[p.i]
		p.i++
		if c == '\\' {
			if p.eof() {
				return false
			}
			p.i++
			continue
		}
		if c == d {
			break
		}
		if c == '\n' {
			return false
		}
	}
	for !p.eof() {
		switch c := p.peek(); {
		case c == 'g' || c == 'p' || c == 'i' || c == 'I' || c == 'm' || c == 'M' || (c >= '0' && c <= '9'):
			p.i++
		case c == 'e':
			p.i++
			p.out = append(p.out, langEffect{effect: runsShell, why: whySedPS})
		case c == 'w':
			p.i++
			p.skipSpace()
			p.write(p.restOfLine())
			return true
		default:
			return true
		}
	}
	return true
}

// write records a file a w command or flag writes; /dev/stdout and
// /dev/stderr are sed's own names for its outputs.
func (p *sedParser) write(name string) {
	if name == "/dev/stdout" || name == "/dev/stderr" {
		return
	}
	p.out = append(p.out, langEffect{effect: writesFile, value: name, static: name != "", why: "sed writes this file"})
}
