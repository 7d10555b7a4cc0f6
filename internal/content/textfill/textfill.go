// Package textfill fills the {{.Name}} placeholders of embedded text: the
// one feature of text/template that toolhost's tool descriptions and
// `tool new` scaffolds use.
//
// Why not text/template: executing a template may call any method by
// name (reflect.Value.MethodByName), so once it is linked the linker keeps
// every exported method of every type that is ever stored in an
// interface, used or not. In toolhost that was 5.4 MB of a 54 MB stripped
// binary (BENCHMARKS.md, "Getting it"). A test in internal/testkit/layout keeps
// text/template and html/template out of the binary.
//
// The texts stay valid templates with the same output: Fill refuses any
// action other than a placeholder with a value.
package textfill

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Fill returns text with each {{.Key}} replaced by fmt.Sprint(values[Key]),
// as text/template would print it. Any other {{…}}, or a placeholder
// without a value, is an error.
func Fill(text string, values map[string]any) (string, error) {
	var b strings.Builder
	for {
		i := strings.Index(text, "{{")
		if i < 0 {
			b.WriteString(text)
			return b.String(), nil
		}
		j := strings.Index(text[i:], "}}")
		if j < 0 {
			return "", fmt.Errorf("unclosed {{ at %q", head(text[i:]))
		}
		action := text[i+2 : i+j]
		v, ok := values[strings.TrimPrefix(action, ".")]
		if !strings.HasPrefix(action, ".") || !ok {
			return "", fmt.Errorf("{{%s}}: only {{.Name}} placeholders with a value are filled (have %s)", action, keys(values))
		}
		b.WriteString(text[:i])
		fmt.Fprint(&b, v)
		text = text[i+j+2:]
	}
}

// MustFill is Fill for text embedded in the binary, where an error is a
// programming error that any test loading the package catches.
func MustFill(name, text string, values map[string]any) string {
	s, err := Fill(text, values)
	if err != nil {
		panic(fmt.Sprintf("fill %s: %v", name, err))
	}
	return s
}

func head(s string) string {
	if len(s) > 20 {
		return s[:20] + "…"
	}
	return s
}

func keys(m map[string]any) string {
	if len(m) == 0 {
		return "none"
	}
	return "." + strings.Join(slices.Sorted(maps.Keys(m)), ", .")
}
