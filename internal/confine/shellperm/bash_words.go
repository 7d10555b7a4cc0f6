// Words as bash will see them after expansion and quote removal, as far
// as that can be known before the command runs.

package shellperm

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/toolhost/toolhost/runtime/permission"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// token is one word as bash will see it after expansion and quote removal,
// as far as that can be known: value holds permission.Hole for every part
// known only at run time.
type token struct {
	value   string
	display string // value, or the source text when the value has holes
	glob    bool   // unquoted glob characters: the word is a pattern over files
	braces  bool
	split   bool // an unquoted expansion: the word may become any number of words
}

func (t token) known() bool { return !strings.Contains(t.value, permission.Hole) }

// tokens expands words into the fields bash will see: brace expansion and
// tilde expansion done statically, unknown parts as holes.
func (a *analyzer) tokens(words []*syntax.Word) []token {
	var out []token
	for _, w := range words {
		if fields, ok := a.staticFields(w); ok {
			glob := hasUnquotedGlob(w)
			for _, f := range fields {
				out = append(out, token{value: f, display: f, glob: glob})
			}
			continue
		}
		out = append(out, a.token(w))
	}
	return out
}

// token expands one word without brace expansion (used where bash does
// none, or where the word has unknown parts anyway).
func (a *analyzer) token(w *syntax.Word) token {
	if fields, ok := a.staticFields(w); ok && len(fields) == 1 {
		return token{value: fields[0], display: fields[0], glob: hasUnquotedGlob(w)}
	}
	src := a.display(w)
	if hasBraces(w) {
		return token{value: permission.Hole, display: src}
	}
	var b strings.Builder
	for i, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.DblQuoted:
			if p.Dollar {
				b.WriteString(permission.Hole) // $"...": translated
				continue
			}
			for _, q := range p.Parts {
				if lit, ok := q.(*syntax.Lit); ok {
					s, err := expand.Literal(literalConfig(), &syntax.Word{Parts: []syntax.WordPart{&syntax.DblQuoted{Parts: []syntax.WordPart{lit}}}})
					if err == nil {
						b.WriteString(s)
						continue
					}
				}
				b.WriteString(permission.Hole)
			}
		case *syntax.Lit, *syntax.SglQuoted:
			if i == 0 {
				if lit, ok := p.(*syntax.Lit); ok && strings.HasPrefix(lit.Value, "~") {
					b.WriteString(permission.Hole) // tilde with an unknown rest
					continue
				}
			}
			s, err := expand.Literal(literalConfig(), &syntax.Word{Parts: []syntax.WordPart{p}})
			if err != nil {
				b.WriteString(permission.Hole)
				continue
			}
			b.WriteString(s)
		default:
			b.WriteString(permission.Hole)
		}
	}
	return token{value: collapseHoles(b.String()), display: src, glob: hasUnquotedGlob(w), split: maysplit(w)}
}

// maxSubstDisplay is how long a substitution's text may be in a pattern
// shown to a person; a longer one is shown as "$(…)". The commands inside
// are requests of their own, and without the bound every level of
// "$(echo "$(echo …)")" would repeat everything below it: quadratic in the
// command line's length.
const maxSubstDisplay = 64

// display is a word's source text with long substitutions abbreviated.
// Words that display alike still have the same template: it is made from
// the same text, with every substitution a Hole.
func (a *analyzer) display(w *syntax.Word) string {
	src := a.text(w)
	if len(src) <= maxSubstDisplay {
		return src
	}
	var b strings.Builder
	var parts func([]syntax.WordPart)
	parts = func(ps []syntax.WordPart) {
		for _, p := range ps {
			t := a.text(p)
			switch p := p.(type) {
			case *syntax.DblQuoted:
				if p.Dollar {
					b.WriteString("$")
				}
				b.WriteString(`"`)
				parts(p.Parts)
				b.WriteString(`"`)
				continue
			case *syntax.CmdSubst, *syntax.ProcSubst, *syntax.ArithmExp, *syntax.ParamExp:
				if len(t) > maxSubstDisplay {
					b.WriteString(t[:2] + "…" + t[len(t)-1:])
					continue
				}
			}
			b.WriteString(t)
		}
	}
	parts(w.Parts)
	return b.String()
}

func collapseHoles(s string) string {
	for strings.Contains(s, permission.Hole+permission.Hole) {
		s = strings.ReplaceAll(s, permission.Hole+permission.Hole, permission.Hole)
	}
	return s
}

// staticFields expands a word that holds only fixed text: quotes removed,
// braces and a leading tilde expanded (the tilde only while HOME is not
// assigned in the command line).
func (a *analyzer) staticFields(w *syntax.Word) ([]string, bool) {
	if !staticParts(w.Parts) {
		return nil, false
	}
	if lit, ok := firstLit(w); ok && strings.HasPrefix(lit, "~") {
		if a.homeAssigned || !(lit == "~" || strings.HasPrefix(lit, "~/")) {
			return nil, false
		}
	}
	if braceFields(w) > maxBraceFields {
		return nil, false
	}
	fields, err := staticExpand(a.expandCfg(), w)
	if err != nil {
		return nil, false
	}
	return fields, true
}

// braceFields is how many words brace expansion makes of w, counted without
// expanding it; counts above maxBraceFields are reported as
// maxBraceFields+1.
func braceFields(w *syntax.Word) int {
	c := *w // SplitBraces replaces the Parts slice
	if !syntax.SplitBraces(&c) {
		return 1
	}
	return wordBraceFields(&c)
}

func wordBraceFields(w *syntax.Word) int {
	n := 1
	for _, p := range w.Parts {
		b, ok := p.(*syntax.BraceExp)
		if !ok {
			continue
		}
		n = min(n*braceExpFields(b), maxBraceFields+1)
	}
	return n
}

func braceExpFields(b *syntax.BraceExp) int {
	if !b.Sequence {
		n := 0
		for _, e := range b.Elems {
			n = min(n+wordBraceFields(e), maxBraceFields+1)
		}
		return max(n, 1)
	}
	// {x..y[..step]}: numbers, or single characters, as mvdan expands them.
	from, err1 := strconv.ParseInt(b.Elems[0].Lit(), 10, 64)
	to, err2 := strconv.ParseInt(b.Elems[1].Lit(), 10, 64)
	if err1 != nil || err2 != nil {
		f, t := b.Elems[0].Lit(), b.Elems[1].Lit()
		if f == "" || t == "" {
			return 1
		}
		from, to = int64(f[0]), int64(t[0])
	}
	step := uint64(1)
	if len(b.Elems) > 2 {
		if n, err := strconv.ParseInt(b.Elems[2].Lit(), 10, 64); err == nil && n != 0 {
			step = uint64(n)
			if n < 0 {
				step = uint64(-n)
			}
		}
	}
	span := uint64(to) - uint64(from) // the distance, even across the sign
	if from > to {
		span = uint64(from) - uint64(to)
	}
	if span/step >= maxBraceFields {
		return maxBraceFields + 1
	}
	return int(span/step) + 1
}

func firstLit(w *syntax.Word) (string, bool) {
	if len(w.Parts) == 0 {
		return "", false
	}
	l, ok := w.Parts[0].(*syntax.Lit)
	if !ok {
		return "", false
	}
	return l.Value, true
}

func staticParts(parts []syntax.WordPart) bool {
	for _, p := range parts {
		switch p := p.(type) {
		case *syntax.Lit, *syntax.SglQuoted:
		case *syntax.DblQuoted:
			// $"..." is translated through the locale's message
			// catalogue (TEXTDOMAIN, TEXTDOMAINDIR, a .mo file a
			// command may have just written): not fixed text.
			if p.Dollar || !staticParts(p.Parts) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// staticExpand runs mvdan's expander on a word of fixed text with the
// real HOME for the tilde and no file system: a glob stays as written.
// The expander guards every bash call, so a panic inside it becomes an
// error, not a crash.
func staticExpand(cfg *expand.Config, w *syntax.Word) (fields []string, err error) {
	defer func() {
		if v := recover(); v != nil {
			fields, err = nil, fmt.Errorf("expand %v: %v", w, v)
		}
	}()
	return expand.Fields(cfg, w)
}

// expandCfg is the expander's configuration, made once per analysis.
func (a *analyzer) expandCfg() *expand.Config {
	if a.expand == nil {
		home, _ := os.UserHomeDir()
		a.expand = &expand.Config{Env: expand.ListEnviron("HOME=" + home)}
	}
	return a.expand
}

// staticString is a word's value when it is one field of fixed text.
func staticString(w *syntax.Word) (string, bool) {
	if w == nil || !staticParts(w.Parts) || hasBraces(w) {
		return "", false
	}
	if lit, ok := firstLit(w); ok && strings.HasPrefix(lit, "~") {
		return "", false
	}
	s, err := expand.Literal(literalConfig(), w)
	if err != nil {
		return "", false
	}
	return s, true
}

// hasBraces reports unquoted brace expansion, which turns one word into
// several.
func hasBraces(w *syntax.Word) bool {
	for _, p := range w.Parts {
		if l, ok := p.(*syntax.Lit); ok && strings.Contains(l.Value, "{") && (strings.Contains(l.Value, ",") || strings.Contains(l.Value, "..")) {
			return true
		}
	}
	return false
}

// maysplit reports an unquoted expansion, which bash splits into fields
// (and may remove when empty).
func maysplit(w *syntax.Word) bool {
	for _, p := range w.Parts {
		switch p.(type) {
		case *syntax.ParamExp, *syntax.CmdSubst, *syntax.ArithmExp:
			return true
		}
	}
	return false
}

// closesBracket reports whether a "]" follows, in the rest of a literal or
// in any later part of the word (quoted or not: erring towards a glob).
func closesBracket(rest string, later []syntax.WordPart) bool {
	if strings.Contains(rest, "]") {
		return true
	}
	for _, p := range later {
		switch p := p.(type) {
		case *syntax.Lit:
			if strings.Contains(p.Value, "]") {
				return true
			}
		case *syntax.SglQuoted:
			if strings.Contains(p.Value, "]") {
				return true
			}
		default:
			return true // unknown text may hold one
		}
	}
	return false
}

// hasUnquotedGlob reports unquoted *, ? or [ (or an extended glob).
func hasUnquotedGlob(w *syntax.Word) bool {
	for pi, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			v := p.Value
			for i := 0; i < len(v); i++ {
				if v[i] == '\\' {
					i++
					continue
				}
				if v[i] == '*' || v[i] == '?' {
					return true
				}
				// "[" opens a bracket expression only when a "]" follows
				// in the same word: the command "[" is no glob.
				if v[i] == '[' && closesBracket(v[i+1:], w.Parts[pi+1:]) {
					return true
				}
			}
		case *syntax.ExtGlob:
			return true
		}
	}
	return false
}

// literalConfig is the configuration of an expansion with no environment.
// It is new for every call: given nil, mvdan.cc/sh's expand prepares one
// package-level Config in place, which is a data race between concurrent
// bash calls.
func literalConfig() *expand.Config { return &expand.Config{} }
