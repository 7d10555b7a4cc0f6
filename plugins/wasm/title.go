package wasm

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode"
	"unicode/utf8"
)

// titleArgMax bounds the argument shown in a default title, in runes.
const titleArgMax = 60

// defaultTitle is the title of a wasm tool's result when the tool sets
// none: its id and the value of the first argument the model gave, as
// `jira PROJ-12` — what a person watching a run needs to tell calls apart,
// as the built-in tools' titles (a path, a command) do. A string is shown
// as it is, anything else as compact JSON, cut to titleArgMax runes, with
// control characters and line breaks turned into spaces so a title stays
// one line. Arguments that are not an object, or an empty one: the id.
func defaultTitle(id string, args json.RawMessage) string {
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return id
	}
	if _, err := dec.Token(); err != nil { // the first key, or '}'
		return id
	}
	var v json.RawMessage
	if err := dec.Decode(&v); err != nil {
		return id
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		var b bytes.Buffer
		if json.Compact(&b, v) != nil {
			return id
		}
		s = b.String()
	}
	s = strings.TrimSpace(oneLine(s))
	if s == "" {
		return id
	}
	if utf8.RuneCountInString(s) > titleArgMax {
		s = string([]rune(s)[:titleArgMax-1]) + "…"
	}
	return id + " " + s
}

// oneLine replaces control characters (line breaks, escapes a terminal
// would act on) and invalid UTF-8 with spaces.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r == utf8.RuneError || unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return ' '
		}
		return r
	}, s)
}
