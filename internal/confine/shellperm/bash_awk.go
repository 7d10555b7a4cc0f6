// Reading awk program texts for what they run and write: system(), output
// piped to a command (print | "cmd", gawk's |&), a command piped to
// getline, output redirected to a file (print > "f", >>), and gawk's @
// (indirect calls, @include, @load). Only as much of the language is
// lexed as finding them needs: strings, regular expressions, comments and
// line continuations, so that "system" in a string or a regex is not a
// call and a call hidden behind one is still found. What cannot be lexed
// with certainty makes the whole program unreadable (a Hole).

package shellperm

import (
	"strings"
)

// awkTok is one token of an awk program.
type awkTok struct {
	kind   byte   // 'i' identifier, 's' string, 'r' regex, 'n' number, 'o' operator, '\n' newline
	text   string // identifier, operator, or a string's value
	static bool   // a string whose value is certain
}

const maxProgramText = 1 << 16

// scanAwk returns what an awk program runs and writes; ok is false when
// the program cannot be read with certainty.
func scanAwk(src string) ([]langEffect, bool) {
	if len(src) > maxProgramText {
		return nil, false
	}
	toks, ok := lexAwk(src)
	if !ok {
		return nil, false
	}
	var out []langEffect
	inPrint, printDepth, depth := false, 0, 0
	// stmtEnd finds where an output redirection's target ends.
	stmtEnd := func(from int) int {
		d := 0
		for k := from; k < len(toks); k++ {
			t := toks[k]
			if t.kind == '\n' || (t.kind == 'o' && (t.text == ";" || t.text == "}")) {
				return k
			}
			if t.kind == 'o' && (t.text == "(" || t.text == "[") {
				d++
			}
			if t.kind == 'o' && (t.text == ")" || t.text == "]") {
				if d == 0 {
					return k
				}
				d--
			}
		}
		return len(toks)
	}
	for k := 0; k < len(toks); k++ {
		t := toks[k]
		switch {
		case t.kind == '\n' && k > 0 && toks[k-1].kind == 'o' && (toks[k-1].text == "," || toks[k-1].text == "&&" || toks[k-1].text == "||"):
			// The statement goes on after a comma or a logical operator.
		case t.kind == '\n' || (t.kind == 'o' && (t.text == ";" || t.text == "{" || t.text == "}")):
			inPrint = false
		case t.kind == 'i' && (t.text == "print" || t.text == "printf"):
			inPrint, printDepth = true, depth
		case t.kind == 'i' && t.text == "system":
			// system ( "fixed" "text" ): anything else is a Hole.
			if k+1 >= len(toks) || toks[k+1].text != "(" || toks[k+1].kind != 'o' {
				return nil, false
			}
			end := k + 2
			cmd, static := "", true
			for ; end < len(toks) && toks[end].kind == 's'; end++ {
				cmd += toks[end].text
				static = static && toks[end].static
			}
			if end >= len(toks) || toks[end].kind != 'o' || toks[end].text != ")" || end == k+2 {
				static = false
			}
			out = append(out, langEffect{effect: runsShell, value: cmd, static: static, why: "awk's system() runs this with sh -c"})
		case t.kind == 'o' && (t.text == "|" || t.text == "|&"):
			if k+1 < len(toks) && toks[k+1].kind == 'i' && toks[k+1].text == "getline" {
				// "cmd" | getline: the command is the expression before,
				// certain only when it is one string that nothing
				// before it joins to.
				static := k >= 1 && toks[k-1].kind == 's' && toks[k-1].static && (k == 1 || awkStartsExpr(toks[k-2]))
				cmd := ""
				if static {
					cmd = toks[k-1].text
				}
				out = append(out, langEffect{effect: runsShell, value: cmd, static: static, why: "awk runs this with sh -c and reads its output with getline"})
				continue
			}
			if !inPrint {
				return nil, false
			}
			end := stmtEnd(k + 1)
			cmd, static := awkConcat(toks[k+1 : end])
			out = append(out, langEffect{effect: runsShell, value: cmd, static: static, why: "awk pipes its output to this command with sh -c"})
			k = end - 1
		case t.kind == 'o' && (t.text == ">" || t.text == ">>") && inPrint && depth == printDepth:
			end := stmtEnd(k + 1)
			file, static := awkConcat(toks[k+1 : end])
			out = append(out, langEffect{effect: writesFile, value: file, static: static, why: "awk writes this file"})
			k = end - 1
		case t.kind == 'o' && t.text == "@":
			if k+1 < len(toks) && toks[k+1].kind == 'i' && toks[k+1].text == "namespace" {
				continue
			}
			out = append(out, langEffect{effect: runsUnknown, why: "gawk's @ calls a function named at run time (system among them), or includes or loads code"})
		case t.kind == 'o' && (t.text == "(" || t.text == "["):
			depth++
		case t.kind == 'o' && (t.text == ")" || t.text == "]"):
			depth--
			if inPrint && depth < printDepth {
				inPrint = false
			}
		}
	}
	return out, true
}

// awkConcat is the value of an expression that is one or more strings
// joined by concatenation, when it is only that.
func awkConcat(toks []awkTok) (string, bool) {
	if len(toks) == 0 {
		return "", false
	}
	var b strings.Builder
	for _, t := range toks {
		if t.kind != 's' || !t.static {
			return "", false
		}
		b.WriteString(t.text)
	}
	return b.String(), true
}

// awkStartsExpr: after this token a new expression starts, so a string
// that follows it is not joined to anything before.
func awkStartsExpr(t awkTok) bool {
	if t.kind == '\n' {
		return true
	}
	if t.kind != 'o' {
		return false
	}
	switch t.text {
	case "{", "}", ";", "(", ",", "=", "&&", "||":
		return true
	}
	return false
}

// awkOperand: after this token a "/" divides; after anything else it
// starts a regular expression.
func awkOperand(t awkTok, have bool) bool {
	if !have {
		return false
	}
	switch t.kind {
	case 'n', 's', 'r':
		return true
	case 'i':
		return !awkKeywords[t.text]
	case 'o':
		return t.text == ")" || t.text == "]" || t.text == "$" || t.text == "++" || t.text == "--"
	}
	return false
}

// awkKeywords are followed by an expression, so "/" after one starts a
// regular expression.
var awkKeywords = map[string]bool{
	"print": true, "printf": true, "return": true, "in": true, "case": true, "if": true,
	"while": true, "for": true, "do": true, "else": true, "delete": true, "exit": true,
}

// awkAmbiguous: after these tokens awks disagree on, or only the grammar
// decides, whether "/" divides or starts a regex (length /re/ is a match
// for mawk; getline / 2, $/x/, x++ /y/).
func awkAmbiguous(t awkTok, have bool) bool {
	if !have {
		return false
	}
	switch {
	case t.kind == 'i' && (t.text == "getline" || t.text == "length"):
		return true
	case t.kind == 'o' && (t.text == "$" || t.text == "++" || t.text == "--"):
		return true
	}
	return false
}

func isAwkIdent(c byte, first bool) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (!first && c >= '0' && c <= '9')
}

var awkOperators = []string{
	"|&", "||", "&&", ">>", ">=", "<=", "==", "!=", "!~", "++", "--", "+=", "-=", "*=", "%=", "^=", "**=", "**",
	"|", ">", "<", "{", "}", "(", ")", "[", "]", ";", ",", "+", "-", "*", "%", "^", "!", "~", "?", ":", "=", "$", "@",
}

// lexAwk splits an awk program into tokens.
func lexAwk(src string) ([]awkTok, bool) {
	var toks []awkTok
	last := func() (awkTok, bool) {
		if len(toks) == 0 {
			return awkTok{}, false
		}
		return toks[len(toks)-1], true
	}
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			i++
		case c == '\\':
			// A line continuation; one that joins two words (sys\⏎tem)
			// is read differently by different awks.
			j := i + 1
			if j < len(src) && src[j] == '\r' {
				j++
			}
			if j >= len(src) || src[j] != '\n' {
				return nil, false
			}
			if i > 0 && j+1 < len(src) && isAwkIdent(src[i-1], false) && isAwkIdent(src[j+1], false) {
				return nil, false
			}
			i = j + 1
		case c == '#':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == '\n':
			toks = append(toks, awkTok{kind: '\n'})
			i++
		case c == '"':
			val, static, n, ok := awkString(src[i:])
			if !ok {
				return nil, false
			}
			toks = append(toks, awkTok{kind: 's', text: val, static: static})
			i += n
		case c == '/':
			prev, have := last()
			if awkAmbiguous(prev, have) {
				// mawk reads `length /re/` as a regex, gawk may read a
				// division: either could hide code from the other.
				return nil, false
			}
			if awkOperand(prev, have) {
				if i+1 < len(src) && src[i+1] == '=' {
					toks = append(toks, awkTok{kind: 'o', text: "/="})
					i += 2
				} else {
					toks = append(toks, awkTok{kind: 'o', text: "/"})
					i++
				}
				continue
			}
			n, ok := awkRegex(src[i:])
			if !ok {
				return nil, false
			}
			toks = append(toks, awkTok{kind: 'r'})
			i += n
		case isAwkIdent(c, true):
			j := i
			for j < len(src) && isAwkIdent(src[j], false) {
				j++
			}
			toks = append(toks, awkTok{kind: 'i', text: src[i:j]})
			i = j
		case c >= '0' && c <= '9' || c == '.':
			j := i
			for j < len(src) && (isAwkIdent(src[j], false) || src[j] == '.') {
				j++
			}
			toks = append(toks, awkTok{kind: 'n', text: src[i:j]})
			i = j
		default:
			matched := false
			for _, op := range awkOperators {
				if strings.HasPrefix(src[i:], op) {
					toks = append(toks, awkTok{kind: 'o', text: op})
					i += len(op)
					matched = true
					break
				}
			}
			if !matched {
				return nil, false
			}
		}
	}
	return toks, true
}

// awkString reads a string literal at the start of s: its value, whether
// every awk reads that value alike, and its length in s.
func awkString(s string) (val string, static bool, n int, ok bool) {
	var b strings.Builder
	static = true
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			return b.String(), static, i + 1, true
		case '\n':
			return "", false, 0, false
		case '\\':
			i++
			if i >= len(s) {
				return "", false, 0, false
			}
			switch e := s[i]; e {
			case '"', '\\', '/':
				b.WriteByte(e)
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case '\n':
				// gawk continues the string; others differ.
				static = false
			default:
				if e >= '0' && e <= '7' {
					v := 0
					k := 0
					for ; k < 3 && i+k < len(s) && s[i+k] >= '0' && s[i+k] <= '7'; k++ {
						v = v*8 + int(s[i+k]-'0')
					}
					i += k - 1
					if v == 0 {
						// A NUL ends the command where sh receives it.
						static = false
					}
					b.WriteByte(byte(v))
					continue
				}
				// \a, \x41, \q …: read differently by different awks.
				static = false
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", false, 0, false
}

// awkRegex is the length of the regular expression literal at the start
// of s, "/" through "/". Awks differ on a "/" or a backslash inside a
// bracket expression, so one there makes the text unreadable, as does a
// quote in a regex with brackets: should the bracket be read differently,
// the quote would start a string that hides code.
func awkRegex(s string) (int, bool) {
	for i := 1; i < len(s); i++ {
		switch c := s[i]; c {
		case '\n':
			return 0, false
		case '\\':
			i++
			if i < len(s) && s[i] == '\n' {
				return 0, false
			}
		case '[':
			n, ok := bracketExpr(s[i:], '/')
			if !ok {
				return 0, false
			}
			i += n - 1
		case '/':
			if strings.Contains(s[:i], "[") && strings.Contains(s[:i], `"`) {
				return 0, false
			}
			return i + 1, true
		}
	}
	return 0, false
}

// bracketExpr is the length of the bracket expression at the start of s
// ("[" through "]", with [:class:], [.x.] and [=x=] inside). A backslash,
// a newline or the delimiter d inside it is read differently by
// different programs: not ok.
func bracketExpr(s string, d byte) (int, bool) {
	i := 1
	if i < len(s) && s[i] == '^' {
		i++
	}
	if i < len(s) && s[i] == ']' {
		i++
	}
	for ; i < len(s); i++ {
		switch c := s[i]; {
		case c == ']':
			return i + 1, true
		case c == '\\' || c == '\n' || c == d:
			return 0, false
		case c == '[' && i+1 < len(s) && (s[i+1] == ':' || s[i+1] == '.' || s[i+1] == '='):
			end := strings.Index(s[i+2:], string(s[i+1])+"]")
			if end < 0 {
				return 0, false
			}
			inner := s[i+2 : i+2+end]
			if strings.ContainsAny(inner, "\\\n") || strings.IndexByte(inner, d) >= 0 {
				return 0, false
			}
			i += 2 + end + 1
		}
	}
	return 0, false
}
