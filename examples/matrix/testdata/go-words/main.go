//go:generate go run github.com/toolhost/toolhost/sdk-guest/go/cmd/toolhost-gen

// Command words is the Go member of the language matrix: the same tool set
// as examples/rust-words, examples/as-words and examples/d-words, written
// with sdk-guest/go, so the matrix compares every language with Go.
package main

import (
	"fmt"
	"strings"
	"unicode/utf8"

	tool "github.com/toolhost/toolhost/sdk-guest/go"
)

type Text struct {
	Text string `json:"text" jsonschema:"description=The text to count"`
}

type Name struct {
	Name string `json:"name" jsonschema:"description=Who to greet"`
}

type Note struct {
	Key   string  `json:"key" jsonschema:"description=Name of the note"`
	Value *string `json:"value,omitempty" jsonschema:"description=The note to remember; leave out to recall"`
}

var _ = tool.Main("Counts the lines, words and characters (Unicode code points) of a text.", func(ctx *tool.Context, a Text) (tool.Result, error) {
	lines := 0
	if a.Text != "" {
		lines = len(strings.Split(strings.TrimSuffix(a.Text, "\n"), "\n"))
	}
	words := len(strings.Fields(a.Text))
	chars := utf8.RuneCountInString(a.Text)
	ctx.Metadata(fmt.Sprintf("counted %d words", words), nil)
	return tool.Result{
		Output:   fmt.Sprintf("%d lines, %d words, %d characters", lines, words, chars),
		Title:    "words",
		Metadata: map[string]any{"lines": lines, "words": words, "characters": chars},
	}, nil
})

var _ = tool.Define("reverse", "Reverses a text character by character.", func(ctx *tool.Context, a Text) (tool.Result, error) {
	r := []rune(a.Text)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return tool.Text(string(r)), nil
})

var _ = tool.Define("greet", `Greets someone with the configured greeting (config key "greeting", default Hello).`, func(ctx *tool.Context, a Name) (tool.Result, error) {
	greeting, ok := ctx.Config("greeting")
	if !ok {
		greeting = "Hello"
	}
	return tool.Text(greeting + ", " + a.Name + "!"), nil
})

var _ = tool.Define("note", `Remembers a note under a key for the rest of the session when given a value (asks permission "remember" for the key), or recalls the note when not.`, func(ctx *tool.Context, a Note) (tool.Result, error) {
	if a.Value == nil {
		var v string
		if ok, err := ctx.State.Get(a.Key, &v); err != nil || !ok {
			return tool.Result{}, fmt.Errorf("nothing remembered under %q; call words_note with a value first", a.Key)
		}
		return tool.Text(v), nil
	}
	if err := ctx.Ask(tool.AskRequest{Permission: "remember", Patterns: []string{a.Key}, Always: []string{a.Key}}); err != nil {
		return tool.Result{}, err
	}
	if err := ctx.State.Set(a.Key, *a.Value); err != nil {
		return tool.Result{}, err
	}
	return tool.Text("remembered " + a.Key), nil
})

func main() {}
