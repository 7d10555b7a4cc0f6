// The constructs that make bash evaluate text as code beyond what the
// parse shows; each makes its whole command one hole.

package shellperm

import (
	"regexp"
	"slices"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

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

var shellNumber = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*(0[xX][0-9a-fA-F]+|[0-9]+#[0-9a-zA-Z@_]+|[0-9]+)\s*$`)
})

func isShellNumber(s string) bool { return shellNumber().MatchString(s) }

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
			if !t.known() || !arithOnlyNumbers().MatchString(t.value) {
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
	if opts, ok := expandedOptions[name]; ok {
		for i, t := range args {
			if !t.known() {
				return true
			}
			if !strings.HasPrefix(t.value, "-") || !strings.ContainsAny(t.value[1:], opts) {
				continue
			}
			// The value is the rest of the word, or the next word.
			v := t.value[strings.IndexAny(t.value, opts)+1:]
			if v == "" && i+1 < len(args) {
				v = args[i+1].value
			}
			if strings.ContainsAny(v, "$`") {
				return true
			}
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
var arithOnlyNumbers = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9+\-*/%()<>=!&|^~?:, \t]*$`) })

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
